// AdminService handlers: authenticate the bearer token, convert and validate the request,
// hand the write to the store (which commits, audits and publishes), answer with the
// catalog version that includes it.
#pragma once

#include "capplan/v1/admin.grpc.pb.h"
#include "server/rpc/auth.h"
#include "server/rpc/metrics.h"
#include "server/store/catalog_store.h"

namespace capplan::server {

// Reads "authorization: Bearer <token>" metadata. Unauthenticated without a known token,
// PermissionDenied for a token whose role is below `needed`.
absl::StatusOr<Caller> Authorize(const TokenTable& tokens, const grpc::CallbackServerContext& ctx, Role needed);

class AdminServiceImpl final : public capplan::v1::AdminService::CallbackService {
 public:
  AdminServiceImpl(store::CatalogStore* store, const TokenTable* tokens, ServerMetrics* metrics)
      : store_(store), tokens_(tokens), metrics_(metrics) {}

  grpc::ServerUnaryReactor* UpsertGpu(grpc::CallbackServerContext* ctx, const capplan::v1::UpsertGpuRequest* req,
                                      capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteGpu(grpc::CallbackServerContext* ctx, const capplan::v1::DeleteGpuRequest* req,
                                      capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* UpsertInstanceType(grpc::CallbackServerContext* ctx,
                                               const capplan::v1::UpsertInstanceTypeRequest* req,
                                               capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteInstanceType(grpc::CallbackServerContext* ctx,
                                               const capplan::v1::DeleteInstanceTypeRequest* req,
                                               capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* UpsertModel(grpc::CallbackServerContext* ctx, const capplan::v1::UpsertModelRequest* req,
                                        capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteModel(grpc::CallbackServerContext* ctx, const capplan::v1::DeleteModelRequest* req,
                                        capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* SetPrice(grpc::CallbackServerContext* ctx, const capplan::v1::SetPriceRequest* req,
                                     capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* RecordBenchmark(grpc::CallbackServerContext* ctx,
                                            const capplan::v1::RecordBenchmarkRequest* req,
                                            capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteBenchmark(grpc::CallbackServerContext* ctx,
                                            const capplan::v1::DeleteBenchmarkRequest* req,
                                            capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* UpsertFabric(grpc::CallbackServerContext* ctx, const capplan::v1::UpsertFabricRequest* req,
                                         capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteFabric(grpc::CallbackServerContext* ctx, const capplan::v1::DeleteFabricRequest* req,
                                         capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* UpsertElectricityPrice(grpc::CallbackServerContext* ctx,
                                                   const capplan::v1::UpsertElectricityPriceRequest* req,
                                                   capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteElectricityPrice(grpc::CallbackServerContext* ctx,
                                                   const capplan::v1::DeleteElectricityPriceRequest* req,
                                                   capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* ImportPricesCsv(grpc::CallbackServerContext* ctx,
                                            const capplan::v1::ImportPricesCsvRequest* req,
                                            capplan::v1::ImportPricesCsvResponse* resp) override;
  grpc::ServerUnaryReactor* ImportBenchmark(grpc::CallbackServerContext* ctx,
                                            const capplan::v1::ImportBenchmarkRequest* req,
                                            capplan::v1::ImportBenchmarkResponse* resp) override;
  // Read or admin tokens: the audit log is no secret from those who may read the catalog.
  grpc::ServerUnaryReactor* ListAuditLog(grpc::CallbackServerContext* ctx, const capplan::v1::ListAuditLogRequest* req,
                                         capplan::v1::ListAuditLogResponse* resp) override;
  grpc::ServerUnaryReactor* UpsertTcoScenario(grpc::CallbackServerContext* ctx,
                                              const capplan::v1::UpsertTcoScenarioRequest* req,
                                              capplan::v1::WriteResponse* resp) override;
  grpc::ServerUnaryReactor* DeleteTcoScenario(grpc::CallbackServerContext* ctx,
                                              const capplan::v1::DeleteTcoScenarioRequest* req,
                                              capplan::v1::WriteResponse* resp) override;

 private:
  // Authorizes the caller and carries the request's idempotency key and fingerprint.
  template <typename Request>
  absl::StatusOr<store::WriteContext> Context(grpc::CallbackServerContext* ctx, const char* method, const Request& req);
  template <typename Request, typename Fn>
  grpc::ServerUnaryReactor* Write(grpc::CallbackServerContext* ctx, const char* method, const Request& req,
                                  capplan::v1::WriteResponse* resp, Fn&& fn);

  store::CatalogStore* store_;
  const TokenTable* tokens_;
  ServerMetrics* metrics_;
};

}  // namespace capplan::server
