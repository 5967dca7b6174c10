// Admin and catalog-read RPCs over the real server: authentication, read-your-writes, price
// history, validation codes.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <ctime>

#include "client/client.h"
#include "server_process.h"

namespace capplan::testing {
namespace {

constexpr char kAdminToken[] = "admin-token-0123456789abcdef";
constexpr char kReadToken[] = "read-token-0123456789abcdef";

class AdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTokenFile(dir_.path() + "/tokens",
                   std::string(kAdminToken) + " alice admin\n" + kReadToken + " dashboard read\n");
    server_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{"--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
                                 "--db=" + dir_.path() + "/c.db", "--admin_token_file=" + dir_.path() + "/tokens"});
    ASSERT_TRUE(server_->started()) << server_->Wait(0).stderr_text;
  }

  client::Client MakeClient(const std::string& token) {
    client::ClientOptions o;
    o.server = server_->grpc_address();
    o.admin_token = token;
    return client::Client(o);
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(AdminTest, ReadsReturnTheShippedCatalog) {
  client::Client c = MakeClient("");
  absl::StatusOr<capplan::v1::ListGpusResponse> gpus = c.ListGpus();
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  EXPECT_GE(gpus->gpus_size(), 17);
  absl::StatusOr<capplan::v1::ListModelsResponse> models = c.ListModels();
  ASSERT_TRUE(models.ok());
  EXPECT_GE(models->models_size(), 12);
  capplan::v1::ListInstancesRequest req;
  req.set_provider("aws");
  req.set_gpu_name("H100-SXM5-80GB");
  absl::StatusOr<capplan::v1::ListInstancesResponse> inst = c.ListInstances(req);
  ASSERT_TRUE(inst.ok());
  ASSERT_EQ(inst->offers_size(), 2);  // us-east-1 and us-west-2
  EXPECT_EQ(inst->offers(0).current_prices(0).kind(), capplan::v1::PRICE_KIND_ON_DEMAND);
  EXPECT_FALSE(inst->offers(0).current_prices(0).source().citation().empty());
}

TEST_F(AdminTest, WritesNeedAnAdminToken) {
  absl::StatusOr<capplan::v1::WriteResponse> none = MakeClient("").SetPrice(P5Price(55.04));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kUnauthenticated) << none.status();
  absl::StatusOr<capplan::v1::WriteResponse> wrong = MakeClient("not-a-real-token-at-all").SetPrice(P5Price(55.04));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kUnauthenticated);
  absl::StatusOr<capplan::v1::WriteResponse> read = MakeClient(kReadToken).SetPrice(P5Price(55.04));
  EXPECT_EQ(read.status().code(), absl::StatusCode::kPermissionDenied) << read.status();
  // Nothing changed.
  EXPECT_EQ(MakeClient("").GetCatalogVersion()->catalog_version(), 1);
}

TEST_F(AdminTest, SetPriceShowsUpInTheNextReadAndInHistory) {
  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.SetPrice(P5Price(55.04));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version(), 2);
  EXPECT_GT(w->id(), 0);

  client::Client reader = MakeClient("");
  capplan::v1::ListInstancesRequest req;
  req.set_provider("aws");
  req.set_region("us-east-1");
  req.set_gpu_name("H100-SXM5-80GB");
  absl::StatusOr<capplan::v1::ListInstancesResponse> now = reader.ListInstances(req);
  ASSERT_TRUE(now.ok());
  ASSERT_EQ(now->offers_size(), 1);
  EXPECT_DOUBLE_EQ(now->offers(0).current_prices(0).price_usd_per_hour(), 55.04);
  EXPECT_EQ(now->catalog_version(), 2);
  // As of 2025-01-01 the shipped price still stood.
  req.set_prices_as_of_unix_seconds(1735689600);
  absl::StatusOr<capplan::v1::ListInstancesResponse> then = reader.ListInstances(req);
  EXPECT_NEAR(then->offers(0).current_prices(0).price_usd_per_hour(), 98.32, 0.001);

  capplan::v1::ListPriceHistoryRequest h;
  h.set_provider("aws");
  h.set_instance_type("p5.48xlarge");
  h.set_region("us-east-1");
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> history = reader.ListPriceHistory(h);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->prices_size(), 2);
  EXPECT_EQ(history->prices(1).id(), w->id());
  h.set_instance_type("p9.nonexistent");
  EXPECT_EQ(reader.ListPriceHistory(h).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(AdminTest, BadWritesGetTheRightCodes) {
  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<capplan::v1::WriteResponse> neg = admin.SetPrice(P5Price(-3));
  EXPECT_EQ(neg.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(neg.status().message().find("price.price_usd_per_hour"), std::string::npos);
  capplan::v1::SetPriceRequest nokind = P5Price(50);
  nokind.mutable_price()->set_kind(capplan::v1::PRICE_KIND_UNSPECIFIED);
  EXPECT_NE(admin.SetPrice(nokind).status().message().find("price.kind"), std::string::npos);
  capplan::v1::SetPriceRequest unknown = P5Price(50);
  unknown.mutable_price()->set_instance_type("p9.nonexistent");
  EXPECT_EQ(admin.SetPrice(unknown).status().code(), absl::StatusCode::kNotFound);

  capplan::v1::ImportPricesCsvRequest csv;
  csv.set_provider("aws");
  csv.set_csv(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
      "g6.xlarge,L4,1,4,16,0.8048,us-east-1\n"
      "x.large,Z999,1,4,16,1.0,us-east-1\n");
  csv.mutable_source()->set_citation("test");
  csv.mutable_source()->set_as_of_date("2025-11-01");
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> r = admin.ImportPricesCsv(csv);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("row 3 AcceleratorName"), std::string::npos) << r.status();
  EXPECT_EQ(MakeClient("").GetCatalogVersion()->catalog_version(), 1);
}

}  // namespace
}  // namespace capplan::testing

namespace capplan::testing {
namespace {

TEST_F(AdminTest, WritesPassTheSameRequestLimitsAfterAuthentication) {
  // A NaN price, an unknown price kind and a 2 KB citation: each refused naming its field,
  // but only to an authenticated caller (the others learn nothing about the API).
  capplan::v1::SetPriceRequest nan = P5Price(std::nan(""));
  capplan::v1::SetPriceRequest kind = P5Price(55.04);
  kind.mutable_price()->set_kind(static_cast<capplan::v1::PriceKind>(42));
  capplan::v1::SetPriceRequest citation = P5Price(55.04);
  citation.mutable_price()->mutable_source()->set_citation(std::string(2000, 'c'));
  struct Case {
    const capplan::v1::SetPriceRequest* request;
    const char* field;
  } cases[] = {{&nan, "price.price_usd_per_hour: must be a finite number"},
               {&kind, "price.kind: unknown value 42"},
               {&citation, "price.source.citation: at most 1024 bytes"}};
  for (const Case& c : cases) {
    absl::StatusOr<capplan::v1::WriteResponse> w = MakeClient(kAdminToken).SetPrice(*c.request);
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << w.status();
    EXPECT_NE(w.status().message().find(c.field), absl::string_view::npos) << w.status();
    absl::StatusOr<capplan::v1::WriteResponse> anon = MakeClient("").SetPrice(*c.request);
    EXPECT_EQ(anon.status().code(), absl::StatusCode::kUnauthenticated) << anon.status();
  }
}

}  // namespace
}  // namespace capplan::testing
