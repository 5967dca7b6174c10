// PlannerService handlers: validate, convert proto <-> core, call core, finish. Every read
// works on one catalog snapshot taken at the start of the call. RPCs not overridden here
// answer UNIMPLEMENTED (the generated base class does that).
#pragma once

#include <google/protobuf/arena.h>
#include <grpcpp/support/message_allocator.h>

#include <string>

#include "capplan/v1/planner.grpc.pb.h"
#include "core/training/layout_cache.h"
#include "server/planning/answer_memo.h"
#include "server/store/catalog_store.h"
#include "server/watch/watch_hub.h"

namespace capplan::server {

// Plan's request and response on one protobuf arena per call: the ~10 KB answer of many
// small messages is allocated from a few blocks and freed at once when gRPC is done with it,
// instead of one malloc and free per message.
class PlanArenaAllocator final : public grpc::MessageAllocator<capplan::v1::PlanRequest, capplan::v1::PlanResponse> {
 public:
  grpc::MessageHolder<capplan::v1::PlanRequest, capplan::v1::PlanResponse>* AllocateMessages() override;
};

class PlannerServiceImpl final : public capplan::v1::PlannerService::CallbackService {
 public:
  explicit PlannerServiceImpl(const store::CatalogStore* store) : store_(store) {
    SetMessageAllocatorFor_Plan(&plan_allocator_);
  }

  grpc::ServerUnaryReactor* Plan(grpc::CallbackServerContext* ctx, const capplan::v1::PlanRequest* req,
                                 capplan::v1::PlanResponse* resp) override;
  // Unavailable until SetWatchHub; see watch_hub.h and watch_reactor.h.
  grpc::ServerWriteReactor<capplan::v1::WatchPlanResponse>* WatchPlan(
      grpc::CallbackServerContext* ctx, const capplan::v1::WatchPlanRequest* req) override;
  grpc::ServerUnaryReactor* Compare(grpc::CallbackServerContext* ctx, const capplan::v1::CompareRequest* req,
                                    capplan::v1::CompareResponse* resp) override;
  grpc::ServerUnaryReactor* Tco(grpc::CallbackServerContext* ctx, const capplan::v1::TcoRequest* req,
                                capplan::v1::TcoResponse* resp) override;
  // Plan (through the memo, as Plan answers), then render the chosen option.
  grpc::ServerUnaryReactor* Deploy(grpc::CallbackServerContext* ctx, const capplan::v1::DeployRequest* req,
                                   capplan::v1::DeployResponse* resp) override;
  grpc::ServerUnaryReactor* GetCatalogVersion(grpc::CallbackServerContext* ctx,
                                              const capplan::v1::GetCatalogVersionRequest* req,
                                              capplan::v1::GetCatalogVersionResponse* resp) override;
  grpc::ServerUnaryReactor* ListGpus(grpc::CallbackServerContext* ctx, const capplan::v1::ListGpusRequest* req,
                                     capplan::v1::ListGpusResponse* resp) override;
  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* ctx, const capplan::v1::ListModelsRequest* req,
                                       capplan::v1::ListModelsResponse* resp) override;
  grpc::ServerUnaryReactor* ListInstances(grpc::CallbackServerContext* ctx,
                                          const capplan::v1::ListInstancesRequest* req,
                                          capplan::v1::ListInstancesResponse* resp) override;
  grpc::ServerUnaryReactor* ListPriceHistory(grpc::CallbackServerContext* ctx,
                                             const capplan::v1::ListPriceHistoryRequest* req,
                                             capplan::v1::ListPriceHistoryResponse* resp) override;
  grpc::ServerUnaryReactor* ListBenchmarks(grpc::CallbackServerContext* ctx,
                                           const capplan::v1::ListBenchmarksRequest* req,
                                           capplan::v1::ListBenchmarksResponse* resp) override;
  grpc::ServerUnaryReactor* ListFabrics(grpc::CallbackServerContext* ctx, const capplan::v1::ListFabricsRequest* req,
                                        capplan::v1::ListFabricsResponse* resp) override;
  grpc::ServerUnaryReactor* ListElectricityPrices(grpc::CallbackServerContext* ctx,
                                                  const capplan::v1::ListElectricityPricesRequest* req,
                                                  capplan::v1::ListElectricityPricesResponse* resp) override;
  grpc::ServerUnaryReactor* ListTcoScenarios(grpc::CallbackServerContext* ctx,
                                             const capplan::v1::ListTcoScenariosRequest* req,
                                             capplan::v1::ListTcoScenariosResponse* resp) override;

  // Plan's answer on `snap`, from the memo or computed and checked: what Plan answers, for
  // the watch hub's recomputations. `fresh`: computed now even if remembered (prices "as
  // of now" move with the clock), and remembered.
  absl::Status PlanOn(const store::CatalogSnapshot& snap, const capplan::v1::PlanRequest& req,
                      capplan::v1::PlanResponse* resp, bool fresh = false);
  // The release Deploy records in what it renders; set once before the server starts.
  void SetVersion(std::string version) { version_ = std::move(version); }
  // The hub WatchPlan registers with; set once before the server starts.
  void SetWatchHub(WatchHub* hub) { watch_hub_ = hub; }

 private:
  PlanArenaAllocator plan_allocator_;
  const store::CatalogStore* store_;
  WatchHub* watch_hub_ = nullptr;
  std::string version_;
  AnswerMemo memo_;  // Plan and Compare answers by (catalog version, request)
  // Training layout searches of the current catalog version, across distinct requests.
  core::TrainingLayoutCache layouts_;
};

}  // namespace capplan::server
