// The real server under environment faults: its database deleted while it serves, and a
// SIGTERM in the middle of a large import.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

constexpr char kAdminToken[] = "admin-token-0123456789abcdef";

class ReliabilityTest : public ::testing::Test {
 protected:
  void Start(const std::string& grace) {
    std::ofstream(dir_.path() + "/tokens") << kAdminToken << " alice admin\n";
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{
        "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--db=" + db(),
        "--admin_token_file=" + dir_.path() + "/tokens", "--shutdown_grace=" + grace});
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
  }

  client::Client MakeClient(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    o.admin_token = kAdminToken;
    o.timeout = timeout;
    return client::Client(o);
  }

  std::string db() const { return dir_.path() + "/c.db"; }

  // Rows matching `where` in the database file, read directly after the server exited.
  int64_t Count(const std::string& sql) {
    sqlite3* h = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db().c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &q, nullptr), SQLITE_OK) << sql;
    int64_t n = -1;
    if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
    return n;
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(ReliabilityTest, DeletedDatabaseFailsWritesAndHealthGoesNotServing) {
  Start("2s");
  client::Client c = MakeClient();
  ASSERT_TRUE(c.SetPrice(P5Price(90)).ok());
  ASSERT_EQ(c.Health().value_or(""), "SERVING");
  ASSERT_EQ(::unlink(db().c_str()), 0);
  absl::StatusOr<capplan::v1::WriteResponse> w = c.SetPrice(P5Price(91));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kDataLoss) << w.status();
  EXPECT_NE(w.status().message().find(db()), std::string::npos) << w.status();
  EXPECT_EQ(c.Health().value_or(""), "NOT_SERVING");
  // Reads still answer from the last snapshot.
  EXPECT_TRUE(c.GetCatalogVersion().ok());
}

TEST_F(ReliabilityTest, SigtermDuringLargeImportExitsWithinGraceAndNeverAcksALostImport) {
  Start("1s");
  std::string csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n";
  for (int i = 0; i < 50000; ++i) absl::StrAppend(&csv, "g6.xlarge,L4,1,4,16,0.8,r-", i, "\n");
  capplan::v1::ImportPricesCsvRequest req;
  req.set_provider("bulkcloud");
  req.set_csv(csv);
  req.mutable_source()->set_citation("generated offers");
  req.mutable_source()->set_as_of_date("2026-01-01");
  absl::Status import_status = absl::UnknownError("not run");
  client::Client c = MakeClient(std::chrono::milliseconds(60000));
  std::thread importer([&] { import_status = c.ImportPricesCsv(req).status(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const auto t0 = std::chrono::steady_clock::now();
  server_->Signal(SIGTERM);
  ExitResult exit = server_->Wait(15000);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  importer.join();
  EXPECT_EQ(exit.exit_code, 0) << exit.stderr_text;
  EXPECT_LT(seconds, 2.5) << "1 s grace";
  const int64_t imported = Count("SELECT COUNT(*) FROM instance_types WHERE provider = 'bulkcloud'");
  if (import_status.ok()) {
    EXPECT_EQ(imported, 50000);
  } else {
    EXPECT_EQ(imported, 0) << "the client got " << import_status << " but the import committed";
  }
}

}  // namespace
}  // namespace capplan::testing
