// capplan admin set-price|import-csv and the dispatch to the row writes (admin_rows.cc):
// catalog writes, authenticated with the token from CAPPLAN_ADMIN_TOKEN or
// CAPPLAN_ADMIN_TOKEN_FILE.
#include "client/cli/admin.h"

#include <google/protobuf/util/time_util.h>

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "client/cli/commands.h"

namespace capplan::cli {
namespace {

using google::protobuf::util::TimeUtil;

const CommandInfo kSetPrice = {"admin set-price",
                               "record a price row for an instance (effective now or from --effective)",
                               "--provider=NAME --instance_type=TYPE --region=REGION --usd_per_hour=USD "
                               "--citation=TEXT "
                               "--as_of_date=YYYY-MM-DD [flags]",
                               "  CAPPLAN_ADMIN_TOKEN_FILE=var/admin-tokens capplan admin set-price "
                               "--provider=aws \\\n"
                               "    --instance_type=p5.48xlarge --region=us-east-1 --usd_per_hour=55.04 "
                               "\\\n"
                               "    --citation=\"AWS price change 2025-06\" --as_of_date=2025-06-05"};
const CommandInfo kImportCsv = {"admin import-csv",
                                "import a provider's prices from a SkyPilot catalog CSV (AWS v7, GCP v7, Azure v6 "
                                "as published): every good row, the others listed; exit 3 when too many are skipped",
                                "--provider=NAME --file=PATH --citation=TEXT --as_of_date=YYYY-MM-DD "
                                "[flags]",
                                "  capplan admin import-csv --provider=aws --file=vms.csv "
                                "--citation=\"SkyPilot catalog v7\" \\\n"
                                "    --as_of_date=2025-11-01 --mode=partial --max_skipped_fraction=0.05"};

const CommandInfo kAudit = {"admin audit", "read the audit log, newest first (admin or read token)",
                            "[--entity=PREFIX] [--since=DATE] [--until=DATE] [--page_size=N] [--page_token=T]",
                            "  capplan admin audit --entity=prices --since=2026-11-01 --until=2026-12-01"};

// Flags both writes share: the source, the effective time and the request id.
struct WriteFlags {
  std::string provider, citation, as_of_date, request_id;
  int64_t effective_unix_seconds = 0;
};

void AddWriteFlags(FlagSet* flags, WriteFlags* w) {
  flags->String("provider", "NAME", "cloud provider, e.g. aws", &w->provider);
  flags->String("citation", "TEXT", "where the figure comes from", &w->citation);
  IsoDateFlag(flags, "as_of_date", "the date the source was read", &w->as_of_date);
  IsoTimeFlag(flags, "effective", "when the price takes effect, UTC date or time",
              [w](int64_t t) { w->effective_unix_seconds = t; });
  flags->String("request_id", "ID",
                "idempotency key: a retried write with the same id applies "
                "once (default: random)",
                &w->request_id);
}

int SetPrice(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  WriteFlags w;
  v1::SetPriceRequest r;
  v1::Price* p = r.mutable_price();
  p->set_kind(v1::PRICE_KIND_ON_DEMAND);
  AddWriteFlags(&flags, &w);
  flags.Custom("instance_type", "TYPE", "instance type, e.g. p5.48xlarge", "",
               [p](const std::string& v) { return p->set_instance_type(v), absl::OkStatus(); });
  flags.Custom("region", "REGION", "region, e.g. us-east-1", "",
               [p](const std::string& v) { return p->set_region(v), absl::OkStatus(); });
  flags.Custom("kind", "on_demand|spot|reserved_1y|reserved_3y", "price kind", "on_demand", [p](const std::string& v) {
    absl::StatusOr<v1::PriceKind> k = ParsePriceKind(v);
    if (!k.ok()) return k.status();
    p->set_kind(*k);
    return absl::OkStatus();
  });
  NumberField(&flags, "usd_per_hour", "USD", "price in USD per instance-hour", "", 0, true, 1e9,
              [p](double d) { p->set_price_usd_per_hour(d); });
  const int rc = ParseCommandFlags(kSetPrice, args, &flags, global);
  if (rc >= 0) return rc;
  p->set_provider(w.provider);
  if (w.effective_unix_seconds > 0)
    *p->mutable_effective_time() = TimeUtil::SecondsToTimestamp(w.effective_unix_seconds);
  p->mutable_source()->set_citation(w.citation);
  p->mutable_source()->set_as_of_date(w.as_of_date);
  r.set_request_id(w.request_id);
  absl::StatusOr<std::unique_ptr<client::Client>> c = AdminClient(*global);
  if (!c.ok()) return Fail(c.status());
  auto resp = (*c)->SetPrice(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) return PrintJson(*resp), 0;
  std::cout << "price row " << resp->id() << " recorded; catalog version " << resp->catalog_version() << "\n";
  return 0;
}

int ImportCsv(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  WriteFlags w;
  std::string file;
  v1::ImportPricesCsvRequest r;
  r.set_mode(v1::IMPORT_MODE_PARTIAL);
  double max_skipped_fraction = 0.05;
  bool dry_run = false, force = false;
  AddWriteFlags(&flags, &w);
  flags.String("file", "PATH", "CSV file: a SkyPilot catalog vms.csv as published", &file);
  flags.Custom("mode", "partial|strict",
               "partial: every good row in, the others listed; strict: any bad row and nothing is written", "partial",
               [&r](const std::string& v) {
                 if (v != "partial" && v != "strict") return absl::InvalidArgumentError("must be partial or strict");
                 r.set_mode(v == "strict" ? v1::IMPORT_MODE_STRICT : v1::IMPORT_MODE_PARTIAL);
                 return absl::OkStatus();
               });
  flags.Bool("dry_run", "check and print the diff; write nothing", &dry_run);
  flags.Bool(
      "force",
      "accept prices of 0, per-GPU prices far outside the GPU's reference band, unusual GPU counts, GPU relabels",
      &force);
  NumberField(&flags, "max_skipped_fraction", "F",
              "exit 3 when more than this fraction of the importable GPU rows is skipped", "0.05", 0, true, 1,
              [&](double d) { max_skipped_fraction = d; });
  IntField(&flags, "max_rows", "refuse files with more CSV rows than this (header included)", "200000", 1, 200000,
           [&r](int64_t n) { r.set_max_rows(static_cast<int32_t>(n)); });
  const int rc = ParseCommandFlags(kImportCsv, args, &flags, global);
  if (rc >= 0) return rc;
  absl::StatusOr<std::string> csv = ReadFile(file);
  if (!csv.ok()) return UsageError(kImportCsv.path, absl::StrCat("--file: ", csv.status().message()));
  r.set_provider(w.provider);
  r.set_csv(*std::move(csv));
  r.mutable_source()->set_citation(w.citation);
  r.mutable_source()->set_as_of_date(w.as_of_date);
  if (w.effective_unix_seconds > 0)
    *r.mutable_effective_time() = TimeUtil::SecondsToTimestamp(w.effective_unix_seconds);
  r.set_request_id(w.request_id);
  r.set_dry_run(dry_run);
  r.set_force(force);
  absl::StatusOr<std::unique_ptr<client::Client>> c = AdminClient(*global);
  if (!c.ok()) return Fail(c.status());
  auto resp = (*c)->ImportPricesCsv(r);
  if (!resp.ok()) return Fail(resp.status());
  return ImportReport(*resp, max_skipped_fraction, global->json);
}

// One page of the audit log; --page_token continues where the last page stopped.
int Audit(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::ListAuditLogRequest r;
  flags.Custom("entity", "PREFIX", "entries for this entity or under it, e.g. prices or gpu_types/H100-SXM5-80GB",
               "all", [&r](const std::string& v) { return r.set_entity(v), absl::OkStatus(); });
  IsoTimeFlag(&flags, "since", "entries at or after this UTC date or time",
              [&r](int64_t t) { *r.mutable_since_time() = TimeUtil::SecondsToTimestamp(t); });
  IsoTimeFlag(&flags, "until", "entries before this UTC date or time",
              [&r](int64_t t) { *r.mutable_until_time() = TimeUtil::SecondsToTimestamp(t); });
  IntField(&flags, "page_size", "entries per page", "50", 1, 1000,
           [&r](int64_t n) { r.set_page_size(static_cast<int32_t>(n)); });
  flags.Custom("page_token", "T", "the next_page_token a previous page printed", "",
               [&r](const std::string& v) { return r.set_page_token(v), absl::OkStatus(); });
  r.set_page_size(50);
  const int rc = ParseCommandFlags(kAudit, args, &flags, global);
  if (rc >= 0) return rc;
  absl::StatusOr<std::unique_ptr<client::Client>> c = AdminClient(*global);
  if (!c.ok()) return Fail(c.status());
  auto resp = (*c)->ListAuditLog(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) return PrintJson(*resp), 0;
  // One block per entry: the row images are JSON and too wide for a table.
  for (const v1::AuditEntry& e : resp->entries()) {
    const absl::Time at = absl::FromUnixSeconds(e.time().seconds());
    std::cout << "#" << e.id() << " " << absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", at, absl::UTCTimeZone()) << " "
              << e.caller() << " " << e.method() << " " << e.entity() << " (catalog version " << e.catalog_version()
              << ")\n  before: " << (e.before_json().empty() ? "-" : e.before_json())
              << "\n  after:  " << (e.after_json().empty() ? "-" : e.after_json()) << "\n";
  }
  if (resp->entries().empty()) std::cout << "no audit entries match\n";
  if (!resp->next_page_token().empty()) std::cout << "more: --page_token=" << resp->next_page_token() << "\n";
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<client::Client>> AdminClient(const GlobalOptions& global) {
  absl::StatusOr<std::string> token = client::AdminTokenFromEnvironment();
  if (!token.ok()) return token.status();
  client::ClientOptions options = global.client;
  options.admin_token = *std::move(token);
  return std::make_unique<client::Client>(options);
}

int RunAdmin(const std::vector<std::string>& args, GlobalOptions* global) {
  const std::string what = args.empty() ? "" : args[0];
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (what == "set-price") return SetPrice(rest, global);
  if (what == "import-csv") return ImportCsv(rest, global);
  if (what == "audit") return Audit(rest, global);
  if (what == "upsert-fabric") return UpsertFabric(rest, global);
  if (what == "delete-fabric") return DeleteFabric(rest, global);
  if (what == "upsert-electricity") return UpsertElectricity(rest, global);
  if (what == "delete-electricity") return DeleteElectricity(rest, global);
  if (what == "upsert-instance") return UpsertInstance(rest, global);
  if (what == "upsert-gpu") return UpsertGpu(rest, global);
  if (what == "delete-gpu") return DeleteGpu(rest, global);
  if (what == "delete-instance") return DeleteInstance(rest, global);
  if (what == "upsert-model") return UpsertModel(rest, global);
  if (what == "delete-model") return DeleteModel(rest, global);
  if (what == "record-benchmark") return RecordBenchmark(rest, global);
  if (what == "delete-benchmark") return DeleteBenchmark(rest, global);
  if (what == "import-benchmark") return ImportBenchmark(rest, global);
  if (what == "upsert-tco-scenario") return UpsertTcoScenario(rest, global);
  if (what == "delete-tco-scenario") return DeleteTcoScenario(rest, global);
  return SubcommandUsage(
      "admin",
      {"set-price", "import-csv", "audit", "upsert-fabric", "delete-fabric", "upsert-electricity", "delete-electricity",
       "upsert-instance", "delete-instance", "upsert-gpu", "delete-gpu", "upsert-model", "delete-model",
       "record-benchmark", "delete-benchmark", "import-benchmark", "upsert-tco-scenario", "delete-tco-scenario"},
      args);
}

}  // namespace capplan::cli
