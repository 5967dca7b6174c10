#include "server/admin/admin_service.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstdint>
#include <ctime>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/api/bench_import_proto.h"
#include "server/api/catalog_proto.h"
#include "server/api/time_fields.h"
#include "server/rpc/paging.h"
#include "server/rpc/request_limits.h"
#include "server/rpc/status.h"
#include "server/tco/tco_scenario.h"

namespace capplan::server {

namespace v1 = capplan::v1;

absl::StatusOr<Caller> Authorize(const TokenTable& tokens, const grpc::CallbackServerContext& ctx, Role needed) {
  const auto& md = ctx.client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) {
    return absl::UnauthenticatedError("authorization: admin calls need \"Bearer <token>\" metadata");
  }
  absl::StatusOr<Caller> caller = tokens.Authenticate(absl::string_view(it->second.data(), it->second.size()));
  if (!caller.ok()) return caller.status();
  if (needed == Role::kAdmin && caller->role != Role::kAdmin) {
    return absl::PermissionDeniedError(
        absl::StrCat("caller ", caller->name, " has a read-only token; catalog writes need an admin token"));
  }
  return caller;
}

namespace {

// The request body without its request id, hashed (FNV-1a, 64 bits) over the deterministic
// serialization: what "the same request" means for a retried write.
template <typename Request>
std::string Fingerprint(const Request& req) {
  Request body = req;
  body.clear_request_id();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    body.SerializeToCodedStream(&coded);
  }
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return absl::StrCat(absl::Hex(h, absl::kZeroPad16), "/", bytes.size());
}

// The audit filters and page of a ListAuditLog request, checked.
absl::StatusOr<store::AuditQuery> AuditQueryFrom(const v1::ListAuditLogRequest& req) {
  store::AuditQuery q;
  absl::Status entity = store::CheckText("entity", req.entity(), store::kMaxAuditEntityBytes, false);
  if (!entity.ok()) return entity;
  q.entity = req.entity();
  auto micros = [](const google::protobuf::Timestamp& t, const char* name, int64_t* out) -> absl::Status {
    absl::StatusOr<int64_t> seconds = UnixSecondsFrom(0, &t, name, name, kAnyTimestamp);
    if (!seconds.ok()) return seconds.status();
    *out = *seconds * 1000000 + t.nanos() / 1000;
    return absl::OkStatus();
  };
  absl::Status since =
      req.has_since_time() ? micros(req.since_time(), "since_time", &q.since_unix_micros) : absl::OkStatus();
  if (!since.ok()) return since;
  absl::Status until =
      req.has_until_time() ? micros(req.until_time(), "until_time", &q.until_unix_micros) : absl::OkStatus();
  if (!until.ok()) return until;
  absl::StatusOr<int> size = PageSize(req.page_size());
  if (!size.ok()) return size.status();
  q.limit = *size;
  absl::StatusOr<std::vector<std::string>> after = ParsePageToken(req.page_token(), 1);
  if (!after.ok()) return after.status();
  if (!after->empty() && (!absl::SimpleAtoi((*after)[0], &q.before_id) || q.before_id <= 0)) {
    return absl::InvalidArgumentError("page_token: not a next_page_token this server issued for this list");
  }
  return q;
}
}  // namespace

template <typename Request>
absl::StatusOr<store::WriteContext> AdminServiceImpl::Context(grpc::CallbackServerContext* ctx, const char* method,
                                                              const Request& req) {
  absl::StatusOr<Caller> caller = Authorize(*tokens_, *ctx, Role::kAdmin);
  if (!caller.ok()) return caller.status();
  // After authentication, so that a caller without a token learns nothing about the API.
  absl::Status limits = CheckRequest(req);
  if (!limits.ok()) return limits;
  return store::WriteContext{caller->name, method, req.request_id(),
                             req.request_id().empty() ? std::string() : Fingerprint(req)};
}

template <typename Request, typename Fn>
grpc::ServerUnaryReactor* AdminServiceImpl::Write(grpc::CallbackServerContext* ctx, const char* method,
                                                  const Request& req, v1::WriteResponse* resp, Fn&& fn) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  absl::StatusOr<store::WriteResult> result = [&]() -> absl::StatusOr<store::WriteResult> {
    absl::StatusOr<store::WriteContext> wc = Context(ctx, method, req);
    if (!wc.ok()) return wc.status();
    return fn(*wc);
  }();
  if (result.ok()) {
    resp->set_catalog_version(result->catalog_version);
    resp->set_id(result->id);
  }
  reactor->Finish(ToGrpcStatus(result.status()));
  return reactor;
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertGpu(grpc::CallbackServerContext* ctx, const v1::UpsertGpuRequest* req,
                                                      v1::WriteResponse* resp) {
  return Write(ctx, "UpsertGpu", *req, resp, [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
    absl::StatusOr<store::GpuRow> row = GpuFromProto(req->gpu());
    if (!row.ok()) return row.status();
    return store_->UpsertGpu(wc, *row);
  });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteGpu(grpc::CallbackServerContext* ctx, const v1::DeleteGpuRequest* req,
                                                      v1::WriteResponse* resp) {
  return Write(ctx, "DeleteGpu", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteGpu(wc, req->name()); });
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertInstanceType(grpc::CallbackServerContext* ctx,
                                                               const v1::UpsertInstanceTypeRequest* req,
                                                               v1::WriteResponse* resp) {
  return Write(ctx, "UpsertInstanceType", *req, resp,
               [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
                 absl::StatusOr<store::InstanceRow> row = InstanceFromProto(req->instance(), req->source());
                 if (!row.ok()) return row.status();
                 return store_->UpsertInstance(wc, *row);
               });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteInstanceType(grpc::CallbackServerContext* ctx,
                                                               const v1::DeleteInstanceTypeRequest* req,
                                                               v1::WriteResponse* resp) {
  return Write(ctx, "DeleteInstanceType", *req, resp, [&](const store::WriteContext& wc) {
    return store_->DeleteInstance(wc, req->provider(), req->instance_type(), req->region());
  });
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertModel(grpc::CallbackServerContext* ctx,
                                                        const v1::UpsertModelRequest* req, v1::WriteResponse* resp) {
  return Write(ctx, "UpsertModel", *req, resp,
               [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
                 absl::StatusOr<store::ModelRow> row = ModelFromProto(req->model());
                 if (!row.ok()) return row.status();
                 return store_->UpsertModel(wc, *row);
               });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteModel(grpc::CallbackServerContext* ctx,
                                                        const v1::DeleteModelRequest* req, v1::WriteResponse* resp) {
  return Write(ctx, "DeleteModel", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteModel(wc, req->name()); });
}

grpc::ServerUnaryReactor* AdminServiceImpl::SetPrice(grpc::CallbackServerContext* ctx, const v1::SetPriceRequest* req,
                                                     v1::WriteResponse* resp) {
  return Write(ctx, "SetPrice", *req, resp, [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
    absl::StatusOr<store::PriceRow> row = PriceFromProto(req->price());
    if (!row.ok()) return row.status();
    // An unset effective time means "from now".
    if (row->effective_unix_seconds == 0) row->effective_unix_seconds = std::time(nullptr);
    return store_->SetPrice(wc, *row);
  });
}

grpc::ServerUnaryReactor* AdminServiceImpl::RecordBenchmark(grpc::CallbackServerContext* ctx,
                                                            const v1::RecordBenchmarkRequest* req,
                                                            v1::WriteResponse* resp) {
  return Write(ctx, "RecordBenchmark", *req, resp,
               [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
                 absl::StatusOr<store::BenchmarkRow> row = BenchmarkFromProto(req->benchmark());
                 if (!row.ok()) return row.status();
                 return store_->RecordBenchmark(wc, *row);
               });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteBenchmark(grpc::CallbackServerContext* ctx,
                                                            const v1::DeleteBenchmarkRequest* req,
                                                            v1::WriteResponse* resp) {
  return Write(ctx, "DeleteBenchmark", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteBenchmark(wc, req->id()); });
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertFabric(grpc::CallbackServerContext* ctx,
                                                         const v1::UpsertFabricRequest* req, v1::WriteResponse* resp) {
  return Write(ctx, "UpsertFabric", *req, resp,
               [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
                 absl::StatusOr<store::FabricRow> row = FabricFromProto(req->fabric());
                 if (!row.ok()) return row.status();
                 return store_->UpsertFabric(wc, *row);
               });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteFabric(grpc::CallbackServerContext* ctx,
                                                         const v1::DeleteFabricRequest* req, v1::WriteResponse* resp) {
  return Write(ctx, "DeleteFabric", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteFabric(wc, req->name()); });
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertElectricityPrice(grpc::CallbackServerContext* ctx,
                                                                   const v1::UpsertElectricityPriceRequest* req,
                                                                   v1::WriteResponse* resp) {
  return Write(ctx, "UpsertElectricityPrice", *req, resp, [&](const store::WriteContext& wc) {
    return store_->UpsertElectricityPrice(wc, ElectricityFromProto(req->price()));
  });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteElectricityPrice(grpc::CallbackServerContext* ctx,
                                                                   const v1::DeleteElectricityPriceRequest* req,
                                                                   v1::WriteResponse* resp) {
  return Write(ctx, "DeleteElectricityPrice", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteElectricityPrice(wc, req->region()); });
}

namespace {

constexpr int kMaxImportRows = 200000;
constexpr size_t kMaxListedRows = 1000;

absl::StatusOr<store::ImportOptions> ImportOptionsFromProto(const v1::ImportPricesCsvRequest& req) {
  store::ImportOptions o;
  switch (req.mode()) {
    case v1::IMPORT_MODE_UNSPECIFIED:
    case v1::IMPORT_MODE_STRICT:
      break;
    case v1::IMPORT_MODE_PARTIAL:
      o.partial = true;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("mode: must be IMPORT_MODE_STRICT or IMPORT_MODE_PARTIAL, got ", req.mode()));
  }
  if (req.max_rows() < 0 || req.max_rows() > kMaxImportRows) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_rows: must be in [0, ", kMaxImportRows, "] (0: the most), got ", req.max_rows()));
  }
  o.max_rows = static_cast<size_t>(req.max_rows() > 0 ? req.max_rows() : kMaxImportRows);
  o.dry_run = req.dry_run();
  o.force = req.force();
  return o;
}

// The effective time an import takes when the request names none: the list's own date (the
// source's as_of_date, midnight UTC) when it has one and it is not in the future, so that
// re-importing an old list does not make its prices look fresh; otherwise now.
int64_t DefaultEffectiveUnixSeconds(const v1::Source& source) {
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  absl::Time date;
  std::string err;
  if (!absl::ParseTime("%Y-%m-%d", source.as_of_date(), absl::UTCTimeZone(), &date, &err)) return now;
  const int64_t seconds = absl::ToUnixSeconds(date);
  return seconds > 0 && seconds <= now ? seconds : now;
}

void AddRows(const std::vector<store::CsvRowError>& rows, google::protobuf::RepeatedPtrField<v1::ImportRowIssue>* out) {
  for (size_t i = 0; i < rows.size() && i < kMaxListedRows; ++i) {
    v1::ImportRowIssue* r = out->Add();
    r->set_row(rows[i].row);
    r->set_field(rows[i].field);
    r->set_reason(rows[i].message);
    r->set_unsupported(rows[i].unsupported);
  }
}

void AddChanges(const std::vector<store::OfferChange>& changes,
                google::protobuf::RepeatedPtrField<v1::ImportOfferChange>* out) {
  for (size_t i = 0; i < changes.size() && i < kMaxListedRows; ++i) {
    const store::OfferChange& c = changes[i];
    v1::ImportOfferChange* o = out->Add();
    o->set_instance_type(c.instance_type);
    o->set_region(c.region);
    o->set_gpu_name(c.gpu_name);
    o->set_gpu_count(c.gpu_count);
    if (c.old_on_demand_usd_per_hour >= 0) o->set_old_on_demand_usd_per_hour(c.old_on_demand_usd_per_hour);
    o->set_new_on_demand_usd_per_hour(c.new_on_demand_usd_per_hour);
    if (c.old_spot_usd_per_hour >= 0) o->set_old_spot_usd_per_hour(c.old_spot_usd_per_hour);
    if (c.new_spot_usd_per_hour >= 0) o->set_new_spot_usd_per_hour(c.new_spot_usd_per_hour);
    o->set_row(c.row);
  }
}

void FillImportResponse(const store::CsvImportResult& r, v1::ImportPricesCsvResponse* resp) {
  resp->set_catalog_version(r.write.catalog_version);
  resp->set_rows_imported(r.rows_imported);
  resp->set_layout(store::PriceLayoutName(r.layout));
  resp->set_gpu_rows(r.gpu_rows);
  resp->set_rows_without_gpu(r.rows_skipped);
  resp->set_rows_skipped(static_cast<int32_t>(r.errors.size()));
  AddRows(r.errors, resp->mutable_skipped_rows());
  AddRows(r.warnings, resp->mutable_warnings());
  resp->set_offers_new(static_cast<int32_t>(r.diff.new_offers.size()));
  resp->set_offers_changed(static_cast<int32_t>(r.diff.changed.size()));
  resp->set_offers_unchanged(r.diff.unchanged);
  resp->set_offers_superseded(r.diff.superseded);
  AddChanges(r.diff.new_offers, resp->mutable_new_offers());
  AddChanges(r.diff.changed, resp->mutable_changed_prices());
  resp->set_dry_run(!r.written);
  int32_t unsupported = 0;
  for (const store::CsvRowError& e : r.errors) unsupported += e.unsupported ? 1 : 0;
  resp->set_rows_unsupported(unsupported);
}

}  // namespace

grpc::ServerUnaryReactor* AdminServiceImpl::ImportPricesCsv(grpc::CallbackServerContext* ctx,
                                                            const v1::ImportPricesCsvRequest* req,
                                                            v1::ImportPricesCsvResponse* resp) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<store::WriteContext> wc = Context(ctx, "ImportPricesCsv", *req);
    if (!wc.ok()) return wc.status();
    absl::StatusOr<store::ImportOptions> options = ImportOptionsFromProto(*req);
    if (!options.ok()) return options.status();
    absl::StatusOr<int64_t> effective =
        UnixSecondsFrom(req->effective_unix_seconds(), req->has_effective_time() ? &req->effective_time() : nullptr,
                        "effective_unix_seconds", "effective_time", kPriceTimes);
    if (!effective.ok()) return effective.status();
    if (*effective == 0) *effective = DefaultEffectiveUnixSeconds(req->source());
    absl::StatusOr<store::CsvImportResult> r =
        store_->ImportPricesCsv(*wc, req->provider(), req->csv(), SourceFromProto(req->source()), *effective, *options);
    if (!r.ok()) return r.status();
    if (!options->partial && !r->errors.empty()) {
      // gRPC drops the response body on an error status, so the row list travels in the
      // message, one row per line (the first 50).
      std::string message = absl::StrCat("csv: ", r->errors.size(), " bad rows, nothing imported");
      for (size_t i = 0; i < r->errors.size() && i < 50; ++i) {
        const store::CsvRowError& e = r->errors[i];
        absl::StrAppend(&message, "\nrow ", e.row, " ", e.field, ": ", e.message);
      }
      return absl::InvalidArgumentError(message);
    }
    FillImportResponse(*r, resp);
    // The catalog gauges follow every published snapshot (server.cc, CatalogGaugeFeed).
    if (r->written) {
      metrics_->SetLastPriceImport(req->provider(), static_cast<int64_t>(std::time(nullptr)));
    } else {
      resp->set_catalog_version(store_->Snapshot()->catalog_version);
    }
    return absl::OkStatus();
  }();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* AdminServiceImpl::ImportBenchmark(grpc::CallbackServerContext* ctx,
                                                            const v1::ImportBenchmarkRequest* req,
                                                            v1::ImportBenchmarkResponse* resp) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<store::WriteContext> wc = Context(ctx, "ImportBenchmark", *req);
    if (!wc.ok()) return wc.status();
    absl::StatusOr<std::vector<store::BenchmarkRow>> rows = BenchmarkRowsFromImport(*req, *store_->Snapshot());
    if (!rows.ok()) return rows.status();
    absl::StatusOr<store::BenchmarkImportResult> r = store_->ImportBenchmarks(*wc, *rows);
    if (!r.ok()) return r.status();
    resp->set_catalog_version(r->write.catalog_version);
    for (size_t i = 0; i < rows->size(); ++i) {
      store::BenchmarkRow row = (*rows)[i];
      row.id = r->ids[i];
      BenchmarkToProto(row, resp->add_benchmarks());
    }
    resp->set_rows_written(r->rows_written);
    resp->set_rows_unchanged(r->rows_unchanged);
    return absl::OkStatus();
  }();
  if (!status.ok()) resp->Clear();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* AdminServiceImpl::ListAuditLog(grpc::CallbackServerContext* ctx,
                                                         const v1::ListAuditLogRequest* req,
                                                         v1::ListAuditLogResponse* resp) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  absl::Status status = [&]() -> absl::Status {
    absl::StatusOr<Caller> caller = Authorize(*tokens_, *ctx, Role::kRead);
    if (!caller.ok()) return caller.status();
    if (absl::Status limits = CheckRequest(*req); !limits.ok()) return limits;
    absl::StatusOr<store::AuditQuery> q = AuditQueryFrom(*req);
    if (!q.ok()) return q.status();
    absl::StatusOr<store::AuditPage> page = store_->AuditLog(*q);
    if (!page.ok()) return page.status();
    for (const store::AuditEntry& e : page->entries) {
      v1::AuditEntry* out = resp->add_entries();
      out->set_id(e.id);
      *out->mutable_time() = TimestampOfMicros(e.at_unix_micros);
      out->set_caller(e.caller);
      out->set_method(e.method);
      out->set_entity(e.entity);
      out->set_before_json(e.before_json);
      out->set_after_json(e.after_json);
      out->set_catalog_version(e.catalog_version);
    }
    if (page->more) resp->set_next_page_token(PageToken({absl::StrCat(page->entries.back().id)}));
    return absl::OkStatus();
  }();
  if (!status.ok()) resp->Clear();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* AdminServiceImpl::UpsertTcoScenario(grpc::CallbackServerContext* ctx,
                                                              const v1::UpsertTcoScenarioRequest* req,
                                                              v1::WriteResponse* resp) {
  return Write(ctx, "UpsertTcoScenario", *req, resp,
               [&](const store::WriteContext& wc) -> absl::StatusOr<store::WriteResult> {
                 // Checked against the catalog current now; a write that later removes what the
                 // scenario names shows as capplan_tco_scenario_ok 0, with the reason logged.
                 absl::StatusOr<store::TcoScenarioRow> row = TcoScenarioFromProto(*store_->Snapshot(), req->scenario());
                 if (!row.ok()) return row.status();
                 return store_->UpsertTcoScenario(wc, *row);
               });
}

grpc::ServerUnaryReactor* AdminServiceImpl::DeleteTcoScenario(grpc::CallbackServerContext* ctx,
                                                              const v1::DeleteTcoScenarioRequest* req,
                                                              v1::WriteResponse* resp) {
  return Write(ctx, "DeleteTcoScenario", *req, resp,
               [&](const store::WriteContext& wc) { return store_->DeleteTcoScenario(wc, req->name()); });
}

}  // namespace capplan::server
