#include "server/planner/planner_service.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/api/catalog_proto.h"
#include "server/api/time_fields.h"
#include "server/planning/deploy.h"
#include "server/planning/planning.h"
#include "server/rpc/paging.h"
#include "server/rpc/request_limits.h"
#include "server/rpc/status.h"
#include "server/tco/tco_scenario.h"
#include "server/watch/watch_reactor.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* ctx, const absl::Status& s) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  reactor->Finish(ToGrpcStatus(s));
  return reactor;
}

// A default gRPC client refuses answers over 4 MiB; one that large is refused here with a
// reason instead. (With the request limits the largest answer measured is ~0.2 MB.)
constexpr size_t kMaxAnswerBytes = 4u << 20;

// An answer must hold no NaN or infinity and fit a client.
absl::Status CheckAnswer(const google::protobuf::Message& resp) {
  absl::Status s = CheckResponseFinite(resp);
  if (s.ok() && resp.ByteSizeLong() > kMaxAnswerBytes) {
    s = absl::ResourceExhaustedError(absl::StrCat("the answer would be ", resp.ByteSizeLong(), " bytes, over the ",
                                                  kMaxAnswerBytes,
                                                  "-byte limit; ask for fewer options (top_k) or targets"));
  }
  return s;
}

// The path every estimating RPC takes: the request's generic limits, then the handler,
// which checks its answer with CheckAnswer (a remembered answer was checked when stored).
template <typename Req, typename Resp, typename Fn>
grpc::ServerUnaryReactor* Estimate(grpc::CallbackServerContext* ctx, const Req& req, Resp* resp, Fn&& fn) {
  absl::Status s = CheckRequest(req);
  if (s.ok()) s = fn();
  if (!s.ok()) resp->Clear();
  return Done(ctx, s);
}

// A stream refused before its first message; deletes itself when gRPC is done with it.
template <typename Resp>
class RefusedWrite final : public grpc::ServerWriteReactor<Resp> {
  void OnDone() override { delete this; }
};

class PlanArenaHolder final : public grpc::MessageHolder<v1::PlanRequest, v1::PlanResponse> {
 public:
  PlanArenaHolder() : arena_(Options()) {
    set_request(google::protobuf::Arena::CreateMessage<v1::PlanRequest>(&arena_));
    set_response(google::protobuf::Arena::CreateMessage<v1::PlanResponse>(&arena_));
  }
  void Release() override { delete this; }

 private:
  static google::protobuf::ArenaOptions Options() {
    google::protobuf::ArenaOptions o;
    o.start_block_size = 16 * 1024;  // a FULL-view answer fits in a block or two
    o.max_block_size = 64 * 1024;
    return o;
  }
  google::protobuf::Arena arena_;
};

}  // namespace

grpc::MessageHolder<v1::PlanRequest, v1::PlanResponse>* PlanArenaAllocator::AllocateMessages() {
  return new PlanArenaHolder();
}

// `compute` answers from scratch; a repeated question on the same catalog version is
// answered from the memo unless `fresh` (then computed now and remembered in place of an
// older answer). Only answers that passed every check are remembered.
template <typename Req, typename Resp, typename Fn>
absl::Status Remembered(AnswerMemo& memo, const store::CatalogSnapshot& snap, const Req& req, Resp* resp, Fn&& compute,
                        bool fresh = false) {
  const std::string key = AnswerMemo::Key(snap.catalog_version, req);
  if (!fresh && memo.Find(key, resp)) return absl::OkStatus();
  absl::Status s = compute();
  if (s.ok()) s = CheckAnswer(*resp);
  if (s.ok()) memo.Insert(key, *resp);
  return s;
}

absl::Status PlannerServiceImpl::PlanOn(const store::CatalogSnapshot& snap, const v1::PlanRequest& req,
                                        v1::PlanResponse* resp, bool fresh) {
  bool computed = false;
  absl::Status s = Remembered(
      memo_, snap, req, resp,
      [&] {
        computed = true;
        return server::Plan(snap, req, resp, &layouts_);
      },
      fresh);
  if (s.ok() && !computed) resp->set_from_memo(true);
  return s;
}

grpc::ServerUnaryReactor* PlannerServiceImpl::Plan(grpc::CallbackServerContext* ctx, const v1::PlanRequest* req,
                                                   v1::PlanResponse* resp) {
  return Estimate(ctx, *req, resp, [&] { return PlanOn(*store_->Snapshot(), *req, resp); });
}

grpc::ServerUnaryReactor* PlannerServiceImpl::Deploy(grpc::CallbackServerContext* ctx, const v1::DeployRequest* req,
                                                     v1::DeployResponse* resp) {
  return Estimate(ctx, *req, resp, [&] {
    const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
    absl::Status s = server::Deploy(
        *snap, *req, version_, [&](const v1::PlanRequest& p, v1::PlanResponse* out) { return PlanOn(*snap, p, out); },
        resp);
    return s.ok() ? CheckAnswer(*resp) : s;
  });
}

grpc::ServerWriteReactor<v1::WatchPlanResponse>* PlannerServiceImpl::WatchPlan(grpc::CallbackServerContext* ctx,
                                                                               const v1::WatchPlanRequest* req) {
  if (watch_hub_ == nullptr) {
    auto* refused = new RefusedWrite<v1::WatchPlanResponse>();
    refused->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "WatchPlan is not enabled on this server"));
    return refused;
  }
  return WatchPlanReactor::Start(watch_hub_, store_, *req);
}

grpc::ServerUnaryReactor* PlannerServiceImpl::Compare(grpc::CallbackServerContext* ctx, const v1::CompareRequest* req,
                                                      v1::CompareResponse* resp) {
  return Estimate(ctx, *req, resp, [&] {
    const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
    bool computed = false;
    absl::Status s = Remembered(memo_, *snap, *req, resp, [&] {
      computed = true;
      return server::Compare(*snap, *req, resp, &layouts_);
    });
    if (s.ok() && !computed) resp->set_from_memo(true);
    return s;
  });
}

grpc::ServerUnaryReactor* PlannerServiceImpl::Tco(grpc::CallbackServerContext* ctx, const v1::TcoRequest* req,
                                                  v1::TcoResponse* resp) {
  // Remembered as Plan and Compare are: a dashboard re-asks the same own-or-rent question on
  // every refresh, and prices "as of now" change an answer only when a dated price takes
  // effect (the memo's entries expire after AnswerMemoOptions::ttl for that reason).
  return Estimate(ctx, *req, resp, [&] {
    const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
    bool computed = false;
    absl::Status s = Remembered(memo_, *snap, *req, resp, [&] {
      computed = true;
      return server::Tco(*snap, *req, resp);
    });
    if (s.ok() && !computed) resp->set_from_memo(true);
    return s;
  });
}

grpc::ServerUnaryReactor* PlannerServiceImpl::GetCatalogVersion(grpc::CallbackServerContext* ctx,
                                                                const v1::GetCatalogVersionRequest* req,
                                                                v1::GetCatalogVersionResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  resp->set_catalog_version(snap->catalog_version);
  resp->set_loaded_unix_seconds(snap->loaded_unix_seconds);
  resp->set_schema_version(snap->schema_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListGpus(grpc::CallbackServerContext* ctx, const v1::ListGpusRequest* req,
                                                       v1::ListGpusResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (const store::GpuRow& g : snap->gpus) GpuToProto(g, resp->add_gpus());
  resp->set_catalog_version(snap->catalog_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListFabrics(grpc::CallbackServerContext* ctx,
                                                          const v1::ListFabricsRequest* req,
                                                          v1::ListFabricsResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (const store::FabricRow& f : snap->fabrics) FabricToProto(f, resp->add_fabrics());
  resp->set_catalog_version(snap->catalog_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListElectricityPrices(grpc::CallbackServerContext* ctx,
                                                                    const v1::ListElectricityPricesRequest* req,
                                                                    v1::ListElectricityPricesResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (const store::ElectricityRow& e : snap->electricity) ElectricityToProto(e, resp->add_prices());
  resp->set_catalog_version(snap->catalog_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListTcoScenarios(grpc::CallbackServerContext* ctx,
                                                               const v1::ListTcoScenariosRequest* req,
                                                               v1::ListTcoScenariosResponse* resp) {
  absl::Status s = CheckRequest(*req);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (size_t i = 0; s.ok() && i < snap->tco_scenarios.size(); ++i) {
    s = TcoScenarioToProto(snap->tco_scenarios[i], resp->add_scenarios());
  }
  resp->set_catalog_version(snap->catalog_version);
  if (s.ok()) s = CheckAnswer(*resp);
  if (!s.ok()) resp->Clear();
  return Done(ctx, s);
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListModels(grpc::CallbackServerContext* ctx,
                                                         const v1::ListModelsRequest* req,
                                                         v1::ListModelsResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (const store::ModelRow& m : snap->models) ModelToProto(m, resp->add_models());
  resp->set_catalog_version(snap->catalog_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListInstances(grpc::CallbackServerContext* ctx,
                                                            const v1::ListInstancesRequest* req,
                                                            v1::ListInstancesResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  absl::StatusOr<int64_t> as_of = PricesAsOfFrom(req->prices_as_of_unix_seconds(),
                                                 req->has_prices_as_of_time() ? &req->prices_as_of_time() : nullptr);
  if (!as_of.ok()) return Done(ctx, as_of.status());
  absl::StatusOr<int> page_size = PageSize(req->page_size());
  if (!page_size.ok()) return Done(ctx, page_size.status());
  absl::StatusOr<std::vector<std::string>> after = ParsePageToken(req->page_token(), 3);
  if (!after.ok()) return Done(ctx, after.status());
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  auto key = [](const store::InstanceRow& i) { return std::tie(i.provider, i.instance_type, i.region); };
  auto it = snap->instances.begin();
  if (!after->empty()) {
    // Instances are sorted by (provider, type, region): resume after the last one sent.
    const auto last = std::tie((*after)[0], (*after)[1], (*after)[2]);
    it = std::upper_bound(snap->instances.begin(), snap->instances.end(), last,
                          [&](const auto& k, const store::InstanceRow& i) { return k < key(i); });
  }
  const store::InstanceRow* last_sent = nullptr;
  for (; it != snap->instances.end(); ++it) {
    const store::InstanceRow& i = *it;
    if (!req->provider().empty() && i.provider != req->provider()) continue;
    if (!req->region().empty() && i.region != req->region()) continue;
    if (!req->gpu_name().empty() && i.gpu_name != req->gpu_name()) continue;
    if (resp->offers_size() == *page_size) {
      // One more match exists: the caller needs another page.
      resp->set_next_page_token(PageToken({last_sent->provider, last_sent->instance_type, last_sent->region}));
      break;
    }
    v1::InstanceOffer* offer = resp->add_offers();
    InstanceToProto(i, offer->mutable_instance());
    for (int k = 0; k < store::kNumPriceKinds; ++k) {
      const store::PriceRow* p = snap->PriceAt(i, static_cast<store::PriceKind>(k), *as_of);
      if (p != nullptr) PriceToProto(*p, offer->add_current_prices());
    }
    last_sent = &i;
  }
  resp->set_catalog_version(snap->catalog_version);
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListPriceHistory(grpc::CallbackServerContext* ctx,
                                                               const v1::ListPriceHistoryRequest* req,
                                                               v1::ListPriceHistoryResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  absl::StatusOr<int> page_size = PageSize(req->page_size());
  if (!page_size.ok()) return Done(ctx, page_size.status());
  absl::StatusOr<std::vector<std::string>> after = ParsePageToken(req->page_token(), 2);
  if (!after.ok()) return Done(ctx, after.status());
  int64_t after_effective = 0, after_id = 0;
  if (!after->empty() &&
      (!absl::SimpleAtoi((*after)[0], &after_effective) || !absl::SimpleAtoi((*after)[1], &after_id))) {
    return Done(ctx, absl::InvalidArgumentError("page_token: not a token from ListPriceHistory"));
  }
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  if (snap->FindInstance(req->provider(), req->instance_type(), req->region()) == nullptr) {
    return Done(ctx, absl::NotFoundError(absl::StrCat("no instance type \"", req->provider(), " ", req->instance_type(),
                                                      "\" in region \"", req->region(), "\"")));
  }
  const store::PriceRow* last_sent = nullptr;
  for (const store::PriceRow* p : snap->PriceHistory(req->provider(), req->instance_type(), req->region())) {
    if (!after->empty() && std::tie(p->effective_unix_seconds, p->id) <= std::tie(after_effective, after_id)) {
      continue;
    }
    if (resp->prices_size() == *page_size) {
      resp->set_next_page_token(
          PageToken({absl::StrCat(last_sent->effective_unix_seconds), absl::StrCat(last_sent->id)}));
      break;
    }
    PriceToProto(*p, resp->add_prices());
    last_sent = p;
  }
  return Done(ctx, absl::OkStatus());
}

grpc::ServerUnaryReactor* PlannerServiceImpl::ListBenchmarks(grpc::CallbackServerContext* ctx,
                                                             const v1::ListBenchmarksRequest* req,
                                                             v1::ListBenchmarksResponse* resp) {
  if (absl::Status s = CheckRequest(*req); !s.ok()) return Done(ctx, s);
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  for (const store::BenchmarkRow& b : snap->benchmarks) {
    if (!req->gpu_name().empty() && b.gpu_name != req->gpu_name()) continue;
    if (!req->model_name().empty() && b.model_name != req->model_name()) continue;
    BenchmarkToProto(b, resp->add_benchmarks());
  }
  return Done(ctx, absl::OkStatus());
}

}  // namespace capplan::server
