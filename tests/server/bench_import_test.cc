// ImportBenchmark's readers on the tools' own files (tests/data/bench_import/, sources in its
// README): the figure each row takes, the steady state of a training log, and the error a
// caller sees, naming the field, for a file or request that cannot make a row.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "core/bench_import/bench_import_internal.h"
#include "server/api/bench_import_proto.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

std::string ReadData(const std::string& name) {
  std::ifstream in(std::string(CAPPLAN_SOURCE_DIR) + "/tests/data/bench_import/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

v1::ImportBenchmarkRequest Request(v1::BenchmarkFileFormat format, const std::string& file) {
  v1::ImportBenchmarkRequest r;
  r.set_format(format);
  r.set_content(ReadData(file));
  r.set_model_name("Llama-3-8B");
  r.set_gpu_name("A100-SXM4-80GB");
  r.set_gpu_count(1);
  r.mutable_source()->set_citation("test import");
  r.mutable_source()->set_as_of_date("2026-11-30");
  return r;
}

const store::CatalogSnapshot& EmptyCatalog() {
  static const auto* catalog = new store::CatalogSnapshot(store::CatalogTables{});
  return *catalog;
}

absl::StatusOr<std::vector<store::BenchmarkRow>> Rows(const v1::ImportBenchmarkRequest& r,
                                                      const store::CatalogSnapshot& catalog = EmptyCatalog()) {
  return BenchmarkRowsFromImport(r, catalog);
}

// The error is InvalidArgument and its message starts with `field`.
void ExpectFieldError(const v1::ImportBenchmarkRequest& r, const std::string& field) {
  absl::StatusOr<std::vector<store::BenchmarkRow>> rows = Rows(r);
  ASSERT_FALSE(rows.ok()) << field;
  EXPECT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument) << rows.status();
  EXPECT_EQ(rows.status().message().rfind(field, 0), 0u) << "want " << field << ": " << rows.status();
}

TEST(BenchImportTest, VllmResultIsOneServingRowAtItsConcurrency) {
  auto rows = Rows(Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_llama3-8b_a100_tp1_sharegpt_qps-inf.json"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  const store::BenchmarkRow& b = (*rows)[0];
  // vLLM nightly 2024-08-23, vllm_055_llama8B_tp1_sharegpt_qps_inf: 3146.80 output tok/s,
  // 500 requests sent at once, 100,895 prompt and 106,812 output tokens in all.
  EXPECT_EQ(b.workload, core::WorkloadKind::kServing);
  EXPECT_EQ(b.unit, core::MeasuredUnit::kTokensPerSecond);
  EXPECT_DOUBLE_EQ(b.measured_value, 3146.804606615866);
  EXPECT_EQ(b.batch_size, 500);       // request_rate inf, no max_concurrency: all 500 in flight
  EXPECT_EQ(b.sequence_tokens, 202);  // 100895 / 500 = 201.79
  EXPECT_EQ(b.output_tokens, 214);    // 106812 / 500 = 213.62
  EXPECT_EQ(b.engine, core::ServingEngine::kVllm);
  EXPECT_EQ(b.precision, core::Precision::kFp16);
  EXPECT_EQ(b.gpu_count, 1);
  EXPECT_EQ(b.source.citation, "test import");
  EXPECT_NE(b.source.note.find("output_throughput 3146.8 tokens/s"), std::string::npos) << b.source.note;
}

TEST(BenchImportTest, VllmRunAtAFiniteRateOrWithoutAFigureIsRefused) {
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_llama3-8b_a100_tp1_sharegpt_qps-inf.json");
  const std::string file = r.content();
  r.set_content(absl::StrReplaceAll(file, {{"\"request_rate\": \"inf\"", "\"request_rate\": 16.0"}}));
  ExpectFieldError(r, "content.request_rate");
  r.set_content(absl::StrReplaceAll(file, {{"\"output_throughput\"", "\"output_rate\""}}));
  ExpectFieldError(r, "content.output_throughput");
  r.set_content(absl::StrReplaceAll(file, {{"\"completed\": 500", "\"completed\": 1e30"}}));
  ExpectFieldError(r, "content.completed");
  r.set_content(absl::StrReplaceAll(file, {{"\"max_concurrency\": null", "\"max_concurrency\": 0"}}));
  ExpectFieldError(r, "content.max_concurrency");
  r.set_content(file.substr(0, file.size() / 2));
  ExpectFieldError(r, "content: not a JSON object");
  r.set_content(file);
  r.set_format(v1::BENCHMARK_FILE_FORMAT_UNSPECIFIED);
  ExpectFieldError(r, "format");
  r.set_format(v1::BENCHMARK_FILE_FORMAT_VLLM);
  r.clear_model_name();
  ExpectFieldError(r, "model_name");
}

TEST(BenchImportTest, SglangJsonlIsOneRowPerLineWithClosedLoopConcurrency) {
  auto rows = Rows(Request(v1::BENCHMARK_FILE_FORMAT_SGLANG, "sglang_bench_serving_qps-inf.jsonl"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].engine, core::ServingEngine::kSglang);
  EXPECT_EQ((*rows)[0].batch_size, 500);
  // Line 3: max_concurrency 64 is a closed loop of 64 requests in flight; 97,225 output
  // tokens over 500 requests.
  EXPECT_EQ((*rows)[1].batch_size, 64);
  EXPECT_DOUBLE_EQ((*rows)[1].measured_value, 1415.6345861969075);
  EXPECT_EQ((*rows)[1].output_tokens, 194);  // 97225 / 500 = 194.45
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_SGLANG, "sglang_bench_serving_qps-inf.jsonl");
  r.set_content(absl::StrReplaceAll(r.content(), {{"\"max_concurrency\": 64", "\"max_concurrency\": 1e9"}}));
  ExpectFieldError(r, "content line 3.max_concurrency");
}

TEST(BenchImportTest, MlperfOfflineSummaryTakesTokensPerSecondSplitOverReplicas) {
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_MLPERF, "mlperf_llama2-70b-99_offline_8xMI300X.txt");
  r.set_gpu_count(8);
  ExpectFieldError(r, "serving_engine");  // the summary does not name the engine
  r.set_serving_engine(v1::SERVING_ENGINE_VLLM);
  ExpectFieldError(r, "output_tokens");  // nor the dataset's lengths
  r.set_output_tokens(256);
  ExpectFieldError(r, "sequence_tokens");
  r.set_sequence_tokens(1024);
  r.set_replicas(3);
  ExpectFieldError(r, "replicas");  // 3 does not divide 8
  r.set_replicas(8);
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  // "Tokens per second: 23514.8" over 8 MI300X, one server per GPU.
  EXPECT_EQ((*rows)[0].unit, core::MeasuredUnit::kTokensPerSecond);
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 23514.8 / 8);
  EXPECT_EQ((*rows)[0].gpu_count, 1);
  EXPECT_EQ((*rows)[0].batch_size, 0);  // Offline: a saturating load, no stated concurrency
  const std::string file = r.content();
  r.set_content(absl::StrReplaceAll(file, {{"Scenario : Offline", "Scenario : Server"}}));
  ExpectFieldError(r, "content.Scenario");
  r.set_content(absl::StrReplaceAll(file, {{"Result is : VALID", "Result is : INVALID"}}));
  ExpectFieldError(r, "content.Result is");
  r.set_content("not a summary");
  ExpectFieldError(r, "content: not an MLPerf");
}

TEST(BenchImportTest, TorchtitanLogIsTheMedianSteadyStateTpsTimesTheGpus) {
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_TORCHTITAN, "torchtitan_llama3-8b_bf16_8gpu.log");
  r.set_gpu_name("H100-SXM5-80GB");
  r.set_gpu_count(8);
  ExpectFieldError(r, "sequence_tokens");  // the step lines do not state it
  r.set_sequence_tokens(8192);
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  // Steps 10, 20, 30, 40 (step 1 is warm-up: tps 595): tps 6,344 6,321 6,300 6,291, median
  // (6321 + 6300) / 2 = 6310.5 per GPU, x 8 GPUs.
  EXPECT_EQ((*rows)[0].workload, core::WorkloadKind::kTraining);
  EXPECT_EQ((*rows)[0].precision, core::Precision::kBf16);
  EXPECT_EQ((*rows)[0].unit, core::MeasuredUnit::kTokensPerSecond);
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 6310.5 * 8);
  EXPECT_EQ((*rows)[0].sequence_tokens, 8192);
  EXPECT_NE((*rows)[0].source.note.find("4 steady-state steps (10..40"), std::string::npos) << (*rows)[0].source.note;
  r.set_warmup_steps(20);  // steps 30 and 40: (6300 + 6291) / 2
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 6295.5 * 8);
  r.set_warmup_steps(40);
  ExpectFieldError(r, "content: no steady-state torchtitan steps");
  r.set_warmup_steps(0);
  r.set_content(absl::StrReplaceAll(r.content(), {{"tps: 6,321", "tps: 6e12"}}));
  ExpectFieldError(r, "content line 3 tps");
}

TEST(BenchImportTest, MegatronLogIsTheMedianIterationAtTheFinalBatchSize) {
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_MEGATRON, "megatron_gpt_documented_format.log");
  r.set_gpu_count(8);
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  // Iteration 10 is the first logged (warm-up), 20 ran at the ramp-up's batch 64: 30, 40
  // and 50 at 128, median of 8611.9, 8598.4, 8604.2 ms.
  EXPECT_EQ((*rows)[0].unit, core::MeasuredUnit::kSecondsPerStep);
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 8.6042);
  EXPECT_EQ((*rows)[0].batch_size, 128);
  EXPECT_EQ((*rows)[0].sequence_tokens, 4096);  // the arguments dump's seq_length
  r.set_warmup_steps(100);
  ExpectFieldError(r, "content: no steady-state Megatron-LM steps");
}

TEST(BenchImportTest, AnInstanceTypeNamesTheGpuCountAndFabric) {
  core::InstanceRow p4d;
  p4d.provider = "aws";
  p4d.instance_type = "p4d.24xlarge";
  p4d.region = "us-east-1";
  p4d.gpu_name = "A100-SXM4-40GB";
  p4d.gpu_count = 8;
  p4d.fabric_name = "aws-p4d-efa";
  store::CatalogTables tables;
  tables.instances = store::MakeInstanceTable({p4d});
  const store::CatalogSnapshot catalog(tables);
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_MEGATRON, "megatron_gpt_documented_format.log");
  r.clear_gpu_name();
  r.clear_gpu_count();
  r.set_instance_type("p4d.24xlarge");
  auto rows = Rows(r, catalog);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].gpu_name, "A100-SXM4-40GB");
  EXPECT_EQ((*rows)[0].gpu_count, 8);
  EXPECT_EQ((*rows)[0].fabric_name, "aws-p4d-efa");
  r.set_gpu_name("H100-SXM5-80GB");
  rows = Rows(r, catalog);
  EXPECT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(rows.status().message().rfind("gpu_name", 0), 0u) << rows.status();
  r.set_instance_type("no-such-type");
  rows = Rows(r, catalog);
  EXPECT_EQ(rows.status().message().rfind("instance_type", 0), 0u) << rows.status();
}

TEST(BenchImportTest, NumbersOnALogLineDropThousandsSeparators) {
  using core::bench_import::internal::NumberAfter;
  EXPECT_EQ(NumberAfter("tps: 7,034  tflops: 407.35", "tps:"), 7034);
  EXPECT_EQ(NumberAfter("mfu: 41.19%", "mfu:"), 41.19);
  EXPECT_FALSE(NumberAfter("tps: n/a", "tps:").has_value());
  EXPECT_FALSE(NumberAfter("loss: 1.0", "tps:").has_value());
  EXPECT_EQ(core::bench_import::internal::Median({3, 1, 2}), 2);
  EXPECT_EQ(core::bench_import::internal::Median({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace capplan::server
