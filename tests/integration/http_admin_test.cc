// Every admin route over HTTP/JSON: each write succeeds with an admin token and the catalog
// read back over gRPC shows it. New entities are copies of shipped ones under new names, so
// no figure here is new.
#include <gtest/gtest.h>

#include "http_server.h"

namespace capplan::testing {
namespace {

namespace v1 = capplan::v1;

class HttpAdminTest : public HttpServerTest {
 protected:
  // POST /v1/admin/<route> with the admin token; the write's answer.
  static v1::WriteResponse Write(const std::string& route, const google::protobuf::Message& request) {
    v1::WriteResponse w;
    EXPECT_TRUE(Parse(Post("/v1/admin/" + route, Json(request), kAdminToken), &w)) << route;
    EXPECT_GT(w.catalog_version(), 1) << route;
    return w;
  }
};

v1::Source TestSource() {
  v1::Source s;
  s.set_citation("copy of a shipped row, capplan http_admin_test");
  s.set_as_of_date("2025-11-01");
  return s;
}

TEST_F(HttpAdminTest, GpuModelAndFabricUpsertsAndDeletes) {
  absl::StatusOr<v1::ListGpusResponse> gpus = Grpc().ListGpus();
  ASSERT_TRUE(gpus.ok() && gpus->gpus_size() > 0);
  v1::UpsertGpuRequest gpu;
  *gpu.mutable_gpu() = gpus->gpus(0);
  gpu.mutable_gpu()->set_name("HTTP-TEST-GPU");
  Write("upsert-gpu", gpu);
  absl::StatusOr<v1::ListGpusResponse> after = Grpc().ListGpus();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->gpus_size(), gpus->gpus_size() + 1);
  v1::DeleteGpuRequest del_gpu;
  del_gpu.set_name("HTTP-TEST-GPU");
  Write("delete-gpu", del_gpu);
  EXPECT_EQ(Grpc().ListGpus()->gpus_size(), gpus->gpus_size());

  absl::StatusOr<v1::ListModelsResponse> models = Grpc().ListModels();
  ASSERT_TRUE(models.ok() && models->models_size() > 0);
  v1::UpsertModelRequest model;
  *model.mutable_model() = models->models(0);
  model.mutable_model()->set_name("HTTP-TEST-MODEL");
  Write("upsert-model", model);
  EXPECT_EQ(Grpc().ListModels()->models_size(), models->models_size() + 1);
  v1::DeleteModelRequest del_model;
  del_model.set_name("HTTP-TEST-MODEL");
  Write("delete-model", del_model);

  absl::StatusOr<v1::ListFabricsResponse> fabrics = Grpc().ListFabrics();
  ASSERT_TRUE(fabrics.ok() && fabrics->fabrics_size() > 0);
  v1::UpsertFabricRequest fabric;
  *fabric.mutable_fabric() = fabrics->fabrics(0);
  fabric.mutable_fabric()->set_name("http-test-fabric");
  Write("upsert-fabric", fabric);
  EXPECT_EQ(Grpc().ListFabrics()->fabrics_size(), fabrics->fabrics_size() + 1);
  v1::DeleteFabricRequest del_fabric;
  del_fabric.set_name("http-test-fabric");
  Write("delete-fabric", del_fabric);
}

TEST_F(HttpAdminTest, InstancePriceAndCsvWrites) {
  v1::ListInstancesRequest list;
  list.set_provider("aws");
  list.set_region("us-east-1");
  absl::StatusOr<v1::ListInstancesResponse> offers = Grpc().ListInstances(list);
  ASSERT_TRUE(offers.ok() && offers->offers_size() > 0);
  v1::UpsertInstanceTypeRequest inst;
  *inst.mutable_instance() = offers->offers(0).instance();
  inst.mutable_instance()->set_instance_type("http-test.48xlarge");
  *inst.mutable_source() = TestSource();
  Write("upsert-instance-type", inst);
  v1::DeleteInstanceTypeRequest del_inst;
  del_inst.set_provider("aws");
  del_inst.set_instance_type("http-test.48xlarge");
  del_inst.set_region("us-east-1");
  Write("delete-instance-type", del_inst);

  Write("set-price", P5Price(55.04));  // illustrative, as admin_test.cc

  // AWS on-demand price list (us-east-1, 2025): g6.xlarge, one L4, $0.8048/hour (as admin_test.cc).
  v1::ImportPricesCsvRequest csv;
  csv.set_provider("aws");
  csv.set_csv(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
      "g6.xlarge,L4,1,4,16,0.8048,us-east-1\n");
  *csv.mutable_source() = TestSource();
  v1::ImportPricesCsvResponse imported;
  ASSERT_TRUE(Parse(Post("/v1/admin/import-prices-csv", Json(csv), kAdminToken), &imported));
  // The shipped catalog already holds this offer at this price (migration 0002), so the
  // import writes nothing and says so.
  EXPECT_EQ(imported.rows_imported(), 0);
  EXPECT_EQ(imported.offers_unchanged(), 1);
}

TEST_F(HttpAdminTest, BenchmarkAndElectricityWrites) {
  absl::StatusOr<v1::ListBenchmarksResponse> benchmarks = Grpc().ListBenchmarks(v1::ListBenchmarksRequest());
  ASSERT_TRUE(benchmarks.ok() && benchmarks->benchmarks_size() > 0);
  v1::RecordBenchmarkRequest bench;
  *bench.mutable_benchmark() = benchmarks->benchmarks(0);
  bench.mutable_benchmark()->clear_id();
  const v1::WriteResponse recorded = Write("record-benchmark", bench);
  EXPECT_EQ(Grpc().ListBenchmarks(v1::ListBenchmarksRequest())->benchmarks_size(), benchmarks->benchmarks_size() + 1);
  v1::DeleteBenchmarkRequest del_bench;
  del_bench.set_id(recorded.id());
  Write("delete-benchmark", del_bench);
  EXPECT_EQ(Grpc().ListBenchmarks(v1::ListBenchmarksRequest())->benchmarks_size(), benchmarks->benchmarks_size());

  absl::StatusOr<v1::ListElectricityPricesResponse> power = Grpc().ListElectricityPrices();
  ASSERT_TRUE(power.ok() && power->prices_size() > 0);
  v1::UpsertElectricityPriceRequest kwh;
  *kwh.mutable_price() = power->prices(0);
  kwh.mutable_price()->set_region("http-test-region");
  Write("upsert-electricity-price", kwh);
  EXPECT_EQ(Grpc().ListElectricityPrices()->prices_size(), power->prices_size() + 1);
  v1::DeleteElectricityPriceRequest del_kwh;
  del_kwh.set_region("http-test-region");
  Write("delete-electricity-price", del_kwh);
}

TEST_F(HttpAdminTest, TcoScenarioWritesAndTheAuditLog) {
  // The README's TCO template as a standing scenario.
  v1::UpsertTcoScenarioRequest up;
  up.mutable_scenario()->set_name("http-own-or-rent");
  *up.mutable_scenario()->mutable_request() = ReadmeOwnOrRentRequest();
  Write("upsert-tco-scenario", up);
  v1::ListTcoScenariosResponse listed;
  ASSERT_TRUE(Parse(Get("/v1/tco-scenarios"), &listed));
  ASSERT_EQ(listed.scenarios_size(), 1);
  EXPECT_EQ(listed.scenarios(0).name(), "http-own-or-rent");
  EXPECT_EQ(listed.scenarios(0).updated_by(), "alice");

  // The audit log is readable with the read token, newest first, and names the write.
  v1::ListAuditLogRequest audit;
  audit.set_page_size(1);
  v1::ListAuditLogResponse log;
  ASSERT_TRUE(Parse(Post("/v1/admin/list-audit-log", Json(audit), kReadToken), &log));
  ASSERT_EQ(log.entries_size(), 1);
  EXPECT_EQ(log.entries(0).method(), "UpsertTcoScenario");
  EXPECT_EQ(log.entries(0).caller(), "alice");
  EXPECT_EQ(Post("/v1/admin/list-audit-log", Json(audit)).status, 401);

  v1::DeleteTcoScenarioRequest del;
  del.set_name("http-own-or-rent");
  Write("delete-tco-scenario", del);
  ASSERT_TRUE(Parse(Get("/v1/tco-scenarios"), &listed));
  EXPECT_EQ(listed.scenarios_size(), 0);
  // A read token may not write one.
  EXPECT_EQ(Post("/v1/admin/upsert-tco-scenario", Json(up), kReadToken).status, 403);
}

}  // namespace
}  // namespace capplan::testing
