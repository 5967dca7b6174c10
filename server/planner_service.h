// PlannerService handlers: validate, convert proto <-> core, call core, finish. RPCs not yet
// overridden here answer UNIMPLEMENTED (the generated base class does that).
#pragma once

#include "capplan/v1/planner.grpc.pb.h"
#include "server/store/catalog_store.h"

namespace capplan::server {

class PlannerServiceImpl final : public capplan::v1::PlannerService::CallbackService {
 public:
  explicit PlannerServiceImpl(const store::CatalogStore* store) : store_(store) {}

  grpc::ServerUnaryReactor* GetCatalogVersion(
      grpc::CallbackServerContext* context, const capplan::v1::GetCatalogVersionRequest* request,
      capplan::v1::GetCatalogVersionResponse* response) override;

 private:
  const store::CatalogStore* store_;
};

}  // namespace capplan::server
