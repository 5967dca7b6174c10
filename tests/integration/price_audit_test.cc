// Effective-dated prices and the audit log over the real server: a back-dated SetPrice does
// not replace the current price, the Timestamp and Unix-seconds fields name one instant, and
// ListAuditLog reads the log with a read or admin token, filtered and paged; then the same
// through the CLI with ISO-8601 dates.
#include <google/protobuf/util/time_util.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "admin_server.h"

namespace capplan::testing {
namespace {

using google::protobuf::util::TimeUtil;
using PriceAuditTest = AdminServerTest;

// p5.48xlarge us-east-1 on-demand: $98.32/h shipped (AWS page, 2024-06-01); $55.04/h after
// AWS's June 2025 P5 price reduction (effective 2025-06-05 here).
constexpr int64_t k20250101 = 1735689600;
constexpr int64_t k20250605 = 1749081600;

double CurrentP5(client::Client& c, int64_t as_of = 0) {
  capplan::v1::ListInstancesRequest req;
  req.set_provider("aws");
  req.set_region("us-east-1");
  req.set_gpu_name("H100-SXM5-80GB");
  if (as_of > 0) *req.mutable_prices_as_of_time() = TimeUtil::SecondsToTimestamp(as_of);
  absl::StatusOr<capplan::v1::ListInstancesResponse> r = c.ListInstances(req);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() && r->offers_size() == 1 ? r->offers(0).current_prices(0).price_usd_per_hour() : -1;
}

TEST_F(PriceAuditTest, BackDatedSetPriceKeepsTheNewerPriceCurrent) {
  client::Client admin = MakeClient(kAdminToken);
  capplan::v1::SetPriceRequest newer = P5Price(55.04);
  *newer.mutable_price()->mutable_effective_time() = TimeUtil::SecondsToTimestamp(k20250605);
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.SetPrice(newer);
  ASSERT_TRUE(w.ok()) << w.status();
  // The older list price typed in late, dated when it applied.
  capplan::v1::SetPriceRequest older = P5Price(98.32);
  older.mutable_price()->set_effective_unix_seconds(k20250101);
  ASSERT_TRUE(admin.SetPrice(older).ok());
  client::Client reader = MakeClient("");
  EXPECT_DOUBLE_EQ(CurrentP5(reader), 55.04);
  EXPECT_DOUBLE_EQ(CurrentP5(reader, k20250101 + 86400), 98.32);

  // Both fields set and different: refused, naming both; nothing written.
  capplan::v1::SetPriceRequest both = P5Price(50);
  both.mutable_price()->set_effective_unix_seconds(k20250101);
  *both.mutable_price()->mutable_effective_time() = TimeUtil::SecondsToTimestamp(k20250605);
  absl::StatusOr<capplan::v1::WriteResponse> bad = admin.SetPrice(both);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("price.effective_unix_seconds"), std::string::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("price.effective_time"), std::string::npos) << bad.status();
  // History answers carry both forms.
  capplan::v1::ListPriceHistoryRequest h;
  h.set_provider("aws");
  h.set_instance_type("p5.48xlarge");
  h.set_region("us-east-1");
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> history = reader.ListPriceHistory(h);
  ASSERT_TRUE(history.ok());
  // The shipped 2024 list and June 2025 cut (migrations 0002, 0015) and the two writes.
  ASSERT_EQ(history->prices_size(), 4);
  EXPECT_EQ(history->prices(3).id(), w->id());  // oldest first by effective time: the newest last
  EXPECT_EQ(history->prices(3).effective_time().seconds(), k20250605);
}

TEST_F(PriceAuditTest, ImportDatedBeforeANewerPriceAddsHistoryOnly) {
  client::Client admin = MakeClient(kAdminToken);
  capplan::v1::SetPriceRequest newer = P5Price(55.04);
  *newer.mutable_price()->mutable_effective_time() = TimeUtil::SecondsToTimestamp(k20250605);
  ASSERT_TRUE(admin.SetPrice(newer).ok());
  // The 2024 list (the shipped row's figure) imported late, dated 2025-01-01.
  capplan::v1::ImportPricesCsvRequest imp;
  imp.set_provider("aws");
  imp.set_csv(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n"
      "p5.48xlarge,H100,8,192,2048,98.32,,us-east-1,us-east-1a\n");
  imp.mutable_source()->set_citation("AWS EC2 On-Demand pricing page (Linux)");
  imp.mutable_source()->set_as_of_date("2024-06-01");
  *imp.mutable_effective_time() = TimeUtil::SecondsToTimestamp(k20250101);
  imp.set_effective_unix_seconds(k20250101 + 1);
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> bad = admin.ImportPricesCsv(imp);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("effective_time"), std::string::npos) << bad.status();
  imp.clear_effective_unix_seconds();
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> ok = admin.ImportPricesCsv(imp);
  ASSERT_TRUE(ok.ok()) << ok.status();
  // On 2025-01-01 the shipped 98.32 was already in force: the list changes nothing then.
  EXPECT_EQ(ok->rows_imported(), 0);
  EXPECT_EQ(ok->offers_unchanged(), 1);
  EXPECT_TRUE(ok->dry_run());  // nothing written
  client::Client reader = MakeClient("");
  EXPECT_DOUBLE_EQ(CurrentP5(reader), 55.04);
  EXPECT_DOUBLE_EQ(CurrentP5(reader, k20250101 + 86400), 98.32);
}

TEST_F(PriceAuditTest, AuditLogNeedsAReadOrAdminTokenAndFilters) {
  client::Client admin = MakeClient(kAdminToken);
  ASSERT_TRUE(admin.SetPrice(P5Price(55.04)).ok());

  capplan::v1::ListAuditLogRequest req;
  EXPECT_EQ(MakeClient("").ListAuditLog(req).status().code(), absl::StatusCode::kUnauthenticated);
  absl::StatusOr<capplan::v1::ListAuditLogResponse> all = MakeClient(kReadToken).ListAuditLog(req);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_GE(all->entries_size(), 1);
  req.set_entity("prices");
  absl::StatusOr<capplan::v1::ListAuditLogResponse> prices = admin.ListAuditLog(req);
  ASSERT_TRUE(prices.ok()) << prices.status();
  ASSERT_EQ(prices->entries_size(), 1);
  const capplan::v1::AuditEntry& e = prices->entries(0);
  EXPECT_EQ(e.caller(), "alice");
  EXPECT_EQ(e.method(), "SetPrice");
  EXPECT_NE(e.after_json().find("55.04"), std::string::npos) << e.after_json();
  EXPECT_EQ(e.catalog_version(), 2);
  EXPECT_GT(e.time().seconds(), k20250605);  // written now

  // A range before the write finds nothing; one around it finds it.
  *req.mutable_until_time() = TimeUtil::SecondsToTimestamp(k20250101);
  EXPECT_EQ(admin.ListAuditLog(req)->entries_size(), 0);
  *req.mutable_since_time() = e.time();
  *req.mutable_until_time() = TimeUtil::SecondsToTimestamp(e.time().seconds() + 60);
  EXPECT_EQ(admin.ListAuditLog(req)->entries_size(), 1);

  // Bounded and paged like the other lists.
  capplan::v1::ListAuditLogRequest paged;
  paged.set_page_size(1001);
  EXPECT_EQ(admin.ListAuditLog(paged).status().code(), absl::StatusCode::kInvalidArgument);
  paged.set_page_token("not-a-token");
  paged.set_page_size(1);
  EXPECT_EQ(admin.ListAuditLog(paged).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PriceAuditTest, CliSetsPricesWithIsoDatesAndReadsTheAuditLog) {
  auto run = [&](std::vector<std::string> args, const char* token) {
    args.insert(args.begin(), {CAPPLAN_CLI_BINARY, "--server=" + server_->grpc_address()});
    return RunProgram(args, 30000, {{"CAPPLAN_ADMIN_TOKEN", token}});
  };
  ExitResult set = run({"admin", "set-price", "--provider=aws", "--instance_type=p5.48xlarge", "--region=us-east-1",
                        "--usd_per_hour=55.04", "--effective=2025-06-05", "--citation=AWS P5 price reduction",
                        "--as_of_date=2025-06-05"},
                       kAdminToken);
  ASSERT_EQ(set.exit_code, 0) << set.stderr_text;
  // The 2024 list price typed in afterwards, dated when it applied: not current.
  ExitResult old = run({"admin", "set-price", "--provider=aws", "--instance_type=p5.48xlarge", "--region=us-east-1",
                        "--usd_per_hour=98.32", "--effective=2025-01-01T00:00:00Z", "--citation=AWS on-demand page",
                        "--as_of_date=2024-06-01"},
                       kAdminToken);
  ASSERT_EQ(old.exit_code, 0) << old.stderr_text;
  client::Client reader = MakeClient("");
  EXPECT_DOUBLE_EQ(CurrentP5(reader), 55.04);

  ExitResult audit = run({"admin", "audit", "--entity=prices", "--since=2025-01-01"}, kReadToken);
  ASSERT_EQ(audit.exit_code, 0) << audit.stderr_text;
  EXPECT_NE(audit.stdout_text.find("alice SetPrice prices/"), std::string::npos) << audit.stdout_text;
  EXPECT_NE(audit.stdout_text.find("98.32"), std::string::npos) << audit.stdout_text;
  EXPECT_NE(audit.stdout_text.find("55.04"), std::string::npos) << audit.stdout_text;
  ExitResult none = run({"admin", "audit", "--entity=prices", "--until=2025-01-01"}, kReadToken);
  ASSERT_EQ(none.exit_code, 0) << none.stderr_text;
  EXPECT_NE(none.stdout_text.find("no audit entries match"), std::string::npos) << none.stdout_text;
  ExitResult bad = run({"admin", "audit", "--since=1733011200"}, kReadToken);  // Unix seconds are not a date
  EXPECT_NE(bad.exit_code, 0);

  // plan --kind: every option at that kind, named in the output, with spot's note. The spot
  // figure is a test input (about 60% off on-demand), not an AWS quote.
  ExitResult spot =
      run({"admin", "set-price", "--provider=aws", "--instance_type=p5.48xlarge", "--region=us-east-1", "--kind=spot",
           "--usd_per_hour=22", "--effective=2025-06-05", "--citation=test input", "--as_of_date=2025-06-05"},
          kAdminToken);
  ASSERT_EQ(spot.exit_code, 0) << spot.stderr_text;
  ExitResult plan = run({"plan", "serving", "--model=Llama-2-7B", "--prompt_tokens=512", "--output_tokens=128",
                         "--rps=35", "--providers=aws", "--gpus=H100-SXM5-80GB", "--kind=spot"},
                        kReadToken);
  ASSERT_EQ(plan.exit_code, 0) << plan.stderr_text;
  EXPECT_NE(plan.stdout_text.find("us-east-1 spot"), std::string::npos) << plan.stdout_text;
  EXPECT_EQ(plan.stdout_text.find("us-west-2"), std::string::npos) << plan.stdout_text;  // no spot row there
  EXPECT_NE(plan.stdout_text.find("note: spot"), std::string::npos) << plan.stdout_text;
  ExitResult none3y = run({"plan", "serving", "--model=Llama-2-7B", "--prompt_tokens=512", "--output_tokens=128",
                           "--rps=35", "--providers=aws", "--kind=reserved_3y"},
                          kReadToken);
  EXPECT_NE(none3y.exit_code, 0);  // the shipped catalog has no 3-year rows
  EXPECT_NE(none3y.stderr_text.find("price kind"), std::string::npos) << none3y.stderr_text;
}

// A price list over gRPC's default 4 MiB: 50,000 generated AWS v7 rows (about 9 MiB), each
// an L4 offer at the shipped g6.xlarge price (0.8048, migration 0002) in its own region. The
// admin import takes it; any other method is still held to 4 MiB.
TEST_F(PriceAuditTest, AFiftyThousandRowListOverFourMibImports) {
  std::string csv =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
      "AvailabilityZone\n";
  for (int i = 0; i < 50000; ++i) {
    absl::StrAppend(&csv,
                    "g6.xlarge,L4,1.0,4.0,16.0,\"{'Gpus': [{'Name': 'L4', 'Manufacturer': 'NVIDIA', 'Count': 1, "
                    "'MemoryInfo': {'SizeInMiB': 22888}}], 'TotalGpuMemoryInMiB': 22888}\",0.8048,0.3,bulk-",
                    i, ",bulk-", i, "a\n");
  }
  ASSERT_GT(csv.size(), 4u << 20);
  ASSERT_LT(csv.size(), 64u << 20);
  client::Client admin = MakeClient(kAdminToken, std::chrono::minutes(5));
  capplan::v1::ImportPricesCsvRequest imp;
  imp.set_provider("bulk");
  imp.set_csv(csv);
  imp.mutable_source()->set_citation("generated rows at the AWS g6.xlarge price");
  imp.mutable_source()->set_as_of_date("2026-12-01");
  imp.set_mode(capplan::v1::IMPORT_MODE_PARTIAL);
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> r = admin.ImportPricesCsv(imp);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows_imported(), 50000);
  EXPECT_EQ(r->offers_new(), 50000);

  // The same bytes in another method's request: refused before any handler reads them.
  capplan::v1::UpsertModelRequest big;
  big.mutable_model()->set_name(csv.substr(0, 5u << 20));
  absl::StatusOr<capplan::v1::WriteResponse> refused = admin.UpsertModel(big);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted) << refused.status();
}

}  // namespace
}  // namespace capplan::testing
