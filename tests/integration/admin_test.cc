// Admin and catalog-read RPCs over the real server: authentication, read-your-writes, price
// history, validation codes.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>

#include "absl/strings/str_replace.h"
#include "admin_server.h"

namespace capplan::testing {
namespace {

using AdminTest = AdminServerTest;

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
  // p5.48xlarge: us-east-1 and us-west-2 (migration 0002) and the 12 more regions the AWS price
  // list gives (0010, tsaol/aws-gpu data/p5_instances.js, 2026-08-26).
  ASSERT_EQ(inst->offers_size(), 14);
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
  // Test input: a cut below the shipped $55.04/h (migration 0015), not an AWS quote.
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.SetPrice(P5Price(49.50));
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
  EXPECT_DOUBLE_EQ(now->offers(0).current_prices(0).price_usd_per_hour(), 49.50);
  EXPECT_EQ(now->catalog_version(), 2);
  // As of 2025-01-01 the shipped 2024 list price still stood.
  req.set_prices_as_of_unix_seconds(1735689600);
  absl::StatusOr<capplan::v1::ListInstancesResponse> then = reader.ListInstances(req);
  EXPECT_NEAR(then->offers(0).current_prices(0).price_usd_per_hour(), 98.32, 0.001);

  capplan::v1::ListPriceHistoryRequest h;
  h.set_provider("aws");
  h.set_instance_type("p5.48xlarge");
  h.set_region("us-east-1");
  absl::StatusOr<capplan::v1::ListPriceHistoryResponse> history = reader.ListPriceHistory(h);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->prices_size(), 3);  // the 2024 list, the June 2025 cut, this write
  EXPECT_EQ(history->prices(2).id(), w->id());
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

TEST_F(AdminTest, ImportOptionsAreBoundedAndPartialReportsEachSkippedRow) {
  client::Client admin = MakeClient(kAdminToken);
  capplan::v1::ImportPricesCsvRequest req;
  req.set_provider("aws");
  // g6.xlarge at the shipped AWS on-demand price (0.8048); x.large names no catalog GPU.
  req.set_csv(
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region\n"
      "g6.xlarge,L4,1,4,16,0.8048,eu-west-1\n"
      "x.large,Z999,1,4,16,1.0,eu-west-1\n");
  req.mutable_source()->set_citation("test");
  req.mutable_source()->set_as_of_date("2025-11-01");
  capplan::v1::ImportPricesCsvRequest bad = req;
  bad.set_max_rows(200001);
  absl::StatusOr<capplan::v1::ImportPricesCsvResponse> r = admin.ImportPricesCsv(bad);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("max_rows: must be in [0, 200000]"), std::string::npos) << r.status();
  bad = req;
  bad.set_mode(static_cast<capplan::v1::ImportMode>(7));
  EXPECT_EQ(admin.ImportPricesCsv(bad).status().code(), absl::StatusCode::kInvalidArgument);
  bad = req;
  bad.set_max_rows(2);  // the header and one row
  EXPECT_EQ(admin.ImportPricesCsv(bad).status().code(), absl::StatusCode::kInvalidArgument);

  req.set_mode(capplan::v1::IMPORT_MODE_PARTIAL);
  r = admin.ImportPricesCsv(req);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows_imported(), 1);
  EXPECT_EQ(r->gpu_rows(), 2);
  ASSERT_EQ(r->skipped_rows_size(), 1);
  EXPECT_EQ(r->skipped_rows(0).row(), 3);
  EXPECT_EQ(r->skipped_rows(0).field(), "AcceleratorName");
  EXPECT_EQ(r->rows_unsupported(), 1);
  ASSERT_EQ(r->new_offers_size(), 1);
  EXPECT_FALSE(r->new_offers(0).has_old_on_demand_usd_per_hour());
  EXPECT_FALSE(r->dry_run());
  EXPECT_EQ(MakeClient("").GetCatalogVersion()->catalog_version(), r->catalog_version());
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

namespace capplan::testing {
namespace {

// A lab fabric: 4 GPUs on PCIe Gen4 (~32 GB/s one direction, PCIe 4.0 x16) and 25 Gbit/s
// Ethernet per node (25e9 / 8 / 4 bytes/s per GPU), ~30 us TCP latency (migration 0004).
capplan::v1::UpsertFabricRequest LabFabric(const std::string& request_id) {
  capplan::v1::UpsertFabricRequest r;
  capplan::v1::Fabric* f = r.mutable_fabric();
  f->set_name("lab-rig");
  f->set_gpus_per_node(4);
  f->set_intra_link(capplan::v1::INTERCONNECT_KIND_PCIE);
  f->set_intra_node_bytes_per_second_per_gpu(32e9);
  f->set_network(capplan::v1::NETWORK_KIND_ETHERNET);
  f->set_network_bytes_per_second_per_gpu(25e9 / 8 / 4);
  f->set_network_latency_seconds(30e-6);
  f->mutable_source()->set_citation("lab rig inventory, rack 7");
  f->mutable_source()->set_as_of_date("2026-11-30");
  r.set_request_id(request_id);
  return r;
}

TEST_F(AdminTest, ListFabricsAndListsNameEachRowsFabric) {
  client::Client c = MakeClient("");
  absl::StatusOr<capplan::v1::ListFabricsResponse> fabrics = c.ListFabrics();
  ASSERT_TRUE(fabrics.ok()) << fabrics.status();
  EXPECT_EQ(fabrics->catalog_version(), 1);
  const capplan::v1::Fabric* p5 = nullptr;
  for (const capplan::v1::Fabric& f : fabrics->fabrics()) {
    EXPECT_FALSE(f.source().citation().empty()) << f.name();
    if (f.name() == "aws-p5-efa") p5 = &f;
  }
  ASSERT_NE(p5, nullptr);
  // Amazon EC2 P5 page: 3,200 Gbps EFA over 8 GPUs = 50 GB/s per GPU, NVSwitch 450 GB/s.
  EXPECT_EQ(p5->network(), capplan::v1::NETWORK_KIND_EFA);
  EXPECT_EQ(p5->intra_link(), capplan::v1::INTERCONNECT_KIND_NVLINK);
  EXPECT_DOUBLE_EQ(p5->network_bytes_per_second_per_gpu(), 50e9);
  capplan::v1::ListInstancesRequest req;
  req.set_provider("aws");
  req.set_gpu_name("H100-SXM5-80GB");
  absl::StatusOr<capplan::v1::ListInstancesResponse> inst = c.ListInstances(req);
  ASSERT_TRUE(inst.ok());
  EXPECT_EQ(inst->offers(0).instance().fabric_name(), "aws-p5-efa");
  absl::StatusOr<capplan::v1::ListGpusResponse> gpus = c.ListGpus();
  ASSERT_TRUE(gpus.ok());
  for (const capplan::v1::Gpu& g : gpus->gpus()) EXPECT_FALSE(g.default_fabric_name().empty()) << g.name();
  capplan::v1::ListBenchmarksRequest b;
  b.set_model_name("Llama-2-7B");
  b.set_gpu_name("A100-SXM4-80GB");
  absl::StatusOr<capplan::v1::ListBenchmarksResponse> bench = c.ListBenchmarks(b);
  ASSERT_TRUE(bench.ok());
  ASSERT_EQ(bench->benchmarks_size(), 1);
  // Llama 2's figure is 2T tokens over the published GPU-hours: a whole run.
  EXPECT_EQ(bench->benchmarks(0).figure(), capplan::v1::BENCHMARK_FIGURE_END_TO_END);
}

TEST_F(AdminTest, UpsertFabricIsAuditedOnceAndDeleteWaitsForItsUsers) {
  client::Client admin = MakeClient(kAdminToken);
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.UpsertFabric(LabFabric("lab-rig-1"));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->catalog_version(), 2);
  absl::StatusOr<capplan::v1::WriteResponse> again = admin.UpsertFabric(LabFabric("lab-rig-1"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->catalog_version(), 2);  // the first answer; nothing applied twice
  capplan::v1::UpsertFabricRequest other = LabFabric("lab-rig-1");
  other.mutable_fabric()->set_gpus_per_node(8);
  EXPECT_EQ(admin.UpsertFabric(other).status().code(), absl::StatusCode::kInvalidArgument);

  // An offer on it: the fabric cannot go until the offer points elsewhere.
  capplan::v1::UpsertInstanceTypeRequest inst;
  capplan::v1::InstanceType* i = inst.mutable_instance();
  i->set_provider("lab");
  i->set_instance_type("rig-4x-a10g");
  i->set_region("home");
  i->set_gpu_name("A10G");
  i->set_gpu_count(4);
  i->set_fabric_name("lab-rig");
  inst.mutable_source()->set_citation("lab rig inventory, rack 7");
  inst.mutable_source()->set_as_of_date("2026-11-30");
  ASSERT_TRUE(admin.UpsertInstanceType(inst).ok());
  capplan::v1::DeleteFabricRequest del;
  del.set_name("lab-rig");
  absl::StatusOr<capplan::v1::WriteResponse> refused = admin.DeleteFabric(del);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("lab rig-4x-a10g home"), std::string::npos) << refused.status();
  i->set_fabric_name("no-such-fabric");
  absl::StatusOr<capplan::v1::WriteResponse> unknown = admin.UpsertInstanceType(inst);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("instance.fabric_name"), std::string::npos) << unknown.status();
  i->clear_fabric_name();
  ASSERT_TRUE(admin.UpsertInstanceType(inst).ok());
  EXPECT_TRUE(admin.DeleteFabric(del).ok());
  EXPECT_EQ(MakeClient(kReadToken).DeleteFabric(del).status().code(), absl::StatusCode::kPermissionDenied);
}

TEST_F(AdminTest, BadFabricsAndBenchmarkSetupsNameTheirField) {
  client::Client admin = MakeClient(kAdminToken);
  capplan::v1::UpsertFabricRequest no_link = LabFabric("");
  no_link.mutable_fabric()->clear_intra_link();
  capplan::v1::UpsertFabricRequest slow = LabFabric("");
  slow.mutable_fabric()->set_intra_node_bytes_per_second_per_gpu(1);
  capplan::v1::UpsertFabricRequest unnamed = LabFabric("");
  unnamed.mutable_fabric()->clear_name();
  for (const auto& [request, field] :
       {std::make_pair(&no_link, "fabric.intra_link"),
        std::make_pair(&slow, "fabric.intra_node_bytes_per_second_per_gpu"), std::make_pair(&unnamed, "fabric.name")}) {
    absl::StatusOr<capplan::v1::WriteResponse> w = admin.UpsertFabric(*request);
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << w.status();
    EXPECT_NE(w.status().message().find(field), std::string::npos) << w.status();
  }
  // 2 x 2 x 2 = 8 published degrees for a 4-GPU run.
  capplan::v1::RecordBenchmarkRequest r;
  capplan::v1::Benchmark* b = r.mutable_benchmark();
  b->set_gpu_name("A100-SXM4-80GB");
  b->set_model_name("Llama-2-7B");
  b->set_workload(capplan::v1::WORKLOAD_KIND_TRAINING);
  b->set_precision(capplan::v1::PRECISION_BF16);
  b->set_gpu_count(4);
  b->set_sequence_tokens(4096);
  b->set_measured_value(12000);
  b->set_measured_unit("tokens_per_second");
  b->set_tensor_parallel(2);
  b->set_pipeline_parallel(2);
  b->set_data_parallel(2);
  b->mutable_source()->set_citation("test run");
  b->mutable_source()->set_as_of_date("2026-11-30");
  absl::StatusOr<capplan::v1::WriteResponse> w = admin.RecordBenchmark(r);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("gpu_count 4"), std::string::npos) << w.status();
  b->set_data_parallel(1);
  b->set_figure(capplan::v1::BENCHMARK_FIGURE_END_TO_END);
  b->set_fabric_name("dgx-a100-hdr");
  w = admin.RecordBenchmark(r);
  ASSERT_TRUE(w.ok()) << w.status();
  capplan::v1::ListBenchmarksRequest list;
  list.set_model_name("Llama-2-7B");
  absl::StatusOr<capplan::v1::ListBenchmarksResponse> listed = MakeClient("").ListBenchmarks(list);
  ASSERT_TRUE(listed.ok());
  int seen = 0;
  for (const capplan::v1::Benchmark& got : listed->benchmarks()) {
    if (got.id() != w->id()) continue;
    ++seen;
    EXPECT_EQ(got.tensor_parallel(), 2);
    EXPECT_EQ(got.figure(), capplan::v1::BENCHMARK_FIGURE_END_TO_END);
    EXPECT_EQ(got.fabric_name(), "dgx-a100-hdr");
  }
  EXPECT_EQ(seen, 1);
}

// Serving Llama-3-8B on one A100-SXM4-80GB under vLLM at the imported run's own setup: 202+214
// tokens, 500 sequences in flight (pinned), tensor parallel 1.
capplan::v1::CompareRequest ImportedRunSetup() {
  capplan::v1::CompareRequest c;
  capplan::v1::ServingWorkload* w = c.mutable_serving();
  w->set_model_name("Llama-3-8B");
  w->set_weight_precision(capplan::v1::PRECISION_FP16);
  w->set_prompt_tokens(202);
  w->set_output_tokens(214);
  w->set_requests_per_second(1);
  w->set_engine(capplan::v1::SERVING_ENGINE_VLLM);
  capplan::v1::CompareTarget* t = c.add_targets();
  t->set_gpu_name("A100-SXM4-80GB");
  t->set_count(1);
  t->mutable_pinned_parallelism()->set_tensor_parallel(1);
  t->mutable_pinned_parallelism()->set_serving_batch_sequences(500);
  return c;
}

TEST_F(AdminTest, AnImportedVllmRunCalibratesTheNextEstimateAndImportsOnce) {
  client::Client admin = MakeClient(kAdminToken);
  client::Client reader = MakeClient("");
  absl::StatusOr<capplan::v1::CompareResponse> before = reader.Compare(ImportedRunSetup());
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_EQ(before->rows_size(), 1);
  ASSERT_TRUE(before->rows(0).infeasible_reason().empty()) << before->rows(0).infeasible_reason();

  std::ifstream in(std::string(CAPPLAN_SOURCE_DIR) +
                   "/tests/data/bench_import/vllm_llama3-8b_a100_tp1_sharegpt_qps-inf.json");
  std::stringstream file;
  file << in.rdbuf();
  capplan::v1::ImportBenchmarkRequest r;
  r.set_format(capplan::v1::BENCHMARK_FILE_FORMAT_VLLM);
  r.set_content(file.str());
  r.set_model_name("Llama-3-8B");
  r.set_gpu_name("A100-SXM4-80GB");
  r.set_gpu_count(1);
  const std::string citation = "vLLM nightly 2024-08-23, vllm_055_llama8B_tp1_sharegpt_qps_inf";
  r.mutable_source()->set_citation(citation);
  r.mutable_source()->set_as_of_date("2024-08-23");
  // A file that cannot make a row writes nothing and names the field.
  capplan::v1::ImportBenchmarkRequest broken = r;
  broken.set_content(absl::StrReplaceAll(file.str(), {{"\"output_throughput\"", "\"output_rate\""}}));
  absl::StatusOr<capplan::v1::ImportBenchmarkResponse> refused = admin.ImportBenchmark(broken);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument) << refused.status();
  EXPECT_NE(refused.status().message().find("content.output_throughput"), std::string::npos) << refused.status();
  EXPECT_EQ(reader.GetCatalogVersion()->catalog_version(), before->catalog_version());

  absl::StatusOr<capplan::v1::ImportBenchmarkResponse> imported = admin.ImportBenchmark(r);
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_EQ(imported->benchmarks_size(), 1);
  EXPECT_EQ(imported->rows_written(), 1);
  const int64_t id = imported->benchmarks(0).id();
  EXPECT_GT(id, 0);
  EXPECT_EQ(imported->benchmarks(0).batch_size(), 500);

  absl::StatusOr<capplan::v1::CompareResponse> after = reader.Compare(ImportedRunSetup());
  ASSERT_TRUE(after.ok()) << after.status();
  const capplan::v1::Provenance& p = after->rows(0).option().provenance();
  EXPECT_NE(p.efficiency_source().find(citation), std::string::npos) << p.efficiency_source();
  EXPECT_NE(std::find(p.benchmark_ids().begin(), p.benchmark_ids().end(), id), p.benchmark_ids().end());
  // The run measured 3146.80 output tokens/s at 214 output tokens a request: the calibrated
  // estimate at its own setup reproduces it, and is nearer to it than the default was.
  const double measured = 3146.804606615866 / 214;
  const double was = before->rows(0).option().requests_per_second().point();
  const double now = after->rows(0).option().requests_per_second().point();
  EXPECT_LT(std::fabs(now - measured), std::fabs(was - measured)) << "default " << was << ", calibrated " << now;
  EXPECT_NEAR(now, measured, 0.02 * measured) << p.efficiency_source();

  // The same file again (another request id): nothing new is written.
  r.set_request_id("import-benchmark-again");
  absl::StatusOr<capplan::v1::ImportBenchmarkResponse> again = admin.ImportBenchmark(r);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->rows_written(), 0);
  EXPECT_EQ(again->rows_unchanged(), 1);
  EXPECT_EQ(again->benchmarks(0).id(), id);
  EXPECT_EQ(again->catalog_version(), imported->catalog_version());
  capplan::v1::ListAuditLogRequest audit;
  audit.set_entity("benchmarks/import");
  absl::StatusOr<capplan::v1::ListAuditLogResponse> log = admin.ListAuditLog(audit);
  ASSERT_TRUE(log.ok()) << log.status();
  ASSERT_EQ(log->entries_size(), 1);
  EXPECT_EQ(log->entries(0).method(), "ImportBenchmark");
  EXPECT_EQ(log->entries(0).caller(), "alice");
  // The note says what was read: a row's source names the file's figure.
  EXPECT_NE(imported->benchmarks(0).source().note().find("output_throughput"), std::string::npos);
}

}  // namespace
}  // namespace capplan::testing
