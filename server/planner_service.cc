#include "server/planner_service.h"

namespace capplan::server {

grpc::ServerUnaryReactor* PlannerServiceImpl::GetCatalogVersion(
    grpc::CallbackServerContext* context, const capplan::v1::GetCatalogVersionRequest* request,
    capplan::v1::GetCatalogVersionResponse* response) {
  const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
  response->set_catalog_version(snap->catalog_version);
  response->set_loaded_unix_seconds(snap->loaded_unix_seconds);
  response->set_schema_version(snap->schema_version);
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace capplan::server
