// ImportBenchmark's readers on the tools' own files (tests/data/bench_import/, sources in its
// README): the figure each row takes, the steady state of a training log, and the error a
// caller sees, naming the field, for a file or request that cannot make a row.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
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

// The lines of a JSON Lines file, numbered from 1, joined back as a file of their own.
std::string Lines(const std::string& file, const std::vector<int>& numbers) {
  const std::vector<std::string> all = absl::StrSplit(file, '\n');
  std::vector<std::string> picked;
  picked.reserve(numbers.size());
  for (int n : numbers) picked.push_back(all.at(static_cast<size_t>(n - 1)));
  return absl::StrJoin(picked, "\n");
}

TEST(BenchImportTest, VllmSaveResultIsOneServingRowWithEveryRequestInFlight) {
  // LambdaLabsML/vllm-benchmark: vLLM's benchmark_serving.py --save-result of 2024-09-07,
  // Meta-Llama-3.1-8B-FP8 on 1xH100-80GB-SXM, 10 prompts at request_rate "inf", no
  // max_concurrency key (the script had none yet), per-request lists in the same object.
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_llama3.1-8b-fp8_1xh100_tp1_qps-inf_lambdalabs.json");
  r.set_gpu_name("H100-SXM5-80GB");
  r.set_precision(v1::PRECISION_FP8);  // model_id names an FP8 checkpoint; the row takes the request's
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  const store::BenchmarkRow& b = (*rows)[0];
  EXPECT_EQ(b.workload, core::WorkloadKind::kServing);
  EXPECT_EQ(b.unit, core::MeasuredUnit::kTokensPerSecond);
  EXPECT_DOUBLE_EQ(b.measured_value, 413.89429359863317);  // "output_throughput"
  EXPECT_EQ(b.batch_size, 10);                             // "completed": 10, all at once
  EXPECT_EQ(b.sequence_tokens, 137);                       // 1369 / 10 = 136.9
  EXPECT_EQ(b.output_tokens, 44);                          // 442 / 10 = 44.2
  EXPECT_EQ(b.engine, core::ServingEngine::kVllm);         // "backend": "vllm"
  EXPECT_EQ(b.precision, core::Precision::kFp8);
  EXPECT_EQ(b.gpu_count, 1);
  EXPECT_EQ(b.source.citation, "test import");
  for (const char* part : {"output_throughput 413.894 tokens/s", "all 10 requests at once",
                           "model_id neuralmagic/Meta-Llama-3.1-8B-FP8", "date 20240907-082634"}) {
    EXPECT_NE(b.source.note.find(part), std::string::npos) << part << ": " << b.source.note;
  }
}

TEST(BenchImportTest, VllmBenchServeAtMaxConcurrencyIsAClosedLoopOfThatBatch) {
  // er0080/vllm-benchmarking: `vllm bench sweep serve` run=0.json (vLLM 0.25.1), indented JSON,
  // facebook/opt-125m, 8 prompts, request_rate "inf", max_concurrency 2, backend "openai".
  auto rows = Rows(Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_bench_sweep_serve_opt-125m_conc2_run0.json"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  const store::BenchmarkRow& b = (*rows)[0];
  EXPECT_DOUBLE_EQ(b.measured_value, 93.74767963046673);
  EXPECT_EQ(b.batch_size, 2);
  EXPECT_EQ(b.sequence_tokens, 32);                 // 256 / 8
  EXPECT_EQ(b.output_tokens, 16);                   // 128 / 8
  EXPECT_EQ(b.engine, core::ServingEngine::kVllm);  // "openai" names no engine: the format's
  EXPECT_EQ(b.precision, core::Precision::kFp16);   // a serving file's default
  EXPECT_NE(b.source.note.find("closed loop of max_concurrency 2 requests in flight"), std::string::npos)
      << b.source.note;
}

TEST(BenchImportTest, VllmAppendedResultsAreJsonLinesAndAFiniteRateLineIsRefused) {
  // nerdalert/vllm-bench-automation results.json: benchmark_serving.py --save-result objects of
  // 2025-05-30, one per line, Llama-3.2-3B-Instruct on 4xL40S behind llm-d (no-features, base,
  // kvcache deployments at 10, 30 and inf QPS). Line 1 ran at request_rate 10.0.
  v1::ImportBenchmarkRequest r = Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_llama3.2-3b_4xl40s_llm-d_results.jsonl");
  r.set_model_name("Llama-3.2-3B");
  r.set_gpu_name("L40S");
  r.set_gpu_count(4);
  r.set_replicas(4);  // decode_replicas 4: four one-GPU servers
  // Lines 1 and 2 are open loops at 10 and 30 requests/s: the mean in flight by Little's law,
  // request_throughput x (mean_ttft_ms + mean_tpot_ms x (output tokens - 1)) / 1000:
  // line 1: 8.369432 x (54.596 + 13.711 x (80945 / 300 - 1)) / 1000 = 31.30 -> 31, 8 per server;
  // line 2: 22.100953 x (80.193 + 24.943 x (237873 / 900 - 1)) / 1000 = 146.9 -> 147, 37 per server.
  {
    auto all = Rows(r);
    ASSERT_TRUE(all.ok()) << all.status();
    ASSERT_EQ(all->size(), 9u);
    EXPECT_DOUBLE_EQ((*all)[0].measured_value, 2258.212337970085 / 4);
    EXPECT_EQ((*all)[0].batch_size, 8);
    EXPECT_EQ((*all)[1].batch_size, 37);
    EXPECT_NE((*all)[0].source.note.find("Little's law"), std::string::npos) << (*all)[0].source.note;
  }
  // Lines 3, 6 and 9 are the inf runs: 900 requests of 999 prompt tokens (899100 / 900).
  r.set_content(Lines(r.content(), {3, 6, 9}));
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  const double output_throughput[] = {8321.230575856995, 10145.340773280393, 11011.349280220396};
  const int64_t output_tokens[] = {267, 269, 267};  // 240165, 241786, 240439 over 900
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ((*rows)[i].measured_value, output_throughput[i] / 4) << i;
    EXPECT_EQ((*rows)[i].batch_size, 225) << i;  // 900 in flight over 4 servers
    EXPECT_EQ((*rows)[i].sequence_tokens, 999) << i;
    EXPECT_EQ((*rows)[i].output_tokens, output_tokens[i]) << i;
    EXPECT_EQ((*rows)[i].gpu_count, 1) << i;
  }
  // One line is the single-object file.
  r.set_content(Lines(ReadData("vllm_llama3.2-3b_4xl40s_llm-d_results.jsonl"), {9}));
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 11011.349280220396 / 4);
}

TEST(BenchImportTest, VllmRunWithoutTheFiguresItsLoadNeedsIsRefused) {
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_VLLM, "vllm_llama3.1-8b-fp8_1xh100_tp1_qps-inf_lambdalabs.json");
  const std::string file = r.content();
  // A finite rate needs the latencies Little's law reads.
  r.set_content(absl::StrReplaceAll(
      file, {{"\"request_rate\": \"inf\"", "\"request_rate\": 16.0"}, {"\"mean_ttft_ms\"", "\"mean_ttft\""}}));
  ExpectFieldError(r, "content.mean_ttft_ms");
  r.set_content(absl::StrReplaceAll(file, {{"\"request_rate\": \"inf\"", "\"request_rate\": \"fast\""}}));
  ExpectFieldError(r, "content.request_rate");
  r.set_content(absl::StrReplaceAll(file, {{"\"output_throughput\"", "\"output_rate\""}}));
  ExpectFieldError(r, "content.output_throughput");
  r.set_content(absl::StrReplaceAll(file, {{"\"completed\": 10,", "\"completed\": 1e30,"}}));
  ExpectFieldError(r, "content.completed");
  r.set_content(file.substr(0, file.size() / 2));
  ExpectFieldError(r, "content: not a JSON object");
  const std::string indented = ReadData("vllm_bench_sweep_serve_opt-125m_conc2_run0.json");
  r.set_content(absl::StrReplaceAll(indented, {{"\"max_concurrency\": 2,", "\"max_concurrency\": 0,"}}));
  ExpectFieldError(r, "content.max_concurrency");
  r.set_content(indented.substr(0, indented.size() / 2));  // many lines, none a whole object
  ExpectFieldError(r, "content: not a JSON object");
  r.set_content(file);
  r.set_format(v1::BENCHMARK_FILE_FORMAT_UNSPECIFIED);
  ExpectFieldError(r, "format");
  r.set_format(v1::BENCHMARK_FILE_FORMAT_VLLM);
  r.clear_model_name();
  ExpectFieldError(r, "model_name");
}

TEST(BenchImportTest, SglangJsonlIsOneRowPerLineInTheOlderKeySet) {
  // datacrunch-research/h200-benchmarks: sglang.bench_serving --output-file of 2024-12,
  // Llama-3.3-70B-Instruct on 4xH200 (TP4), 7 runs at request_rate Infinity. This bench_serving
  // wrote no request_throughput or mean TTFT: only what the reader needs, and medians.
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_SGLANG, "sglang_llama3.3-70b_4xh200_tp4_offline.jsonl");
  r.set_model_name("Llama-3-70B");  // the catalog's Llama 3 70B architecture
  r.set_gpu_name("H200-SXM-141GB");
  r.set_gpu_count(4);
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 7u);
  // Per line: output_throughput; completed; total_input_tokens and total_output_tokens over it.
  const double tput[] = {4520.698730654741,  3492.2944910189917, 2051.287161036558, 1654.9938601765348,
                         1652.8614806713933, 6648.4389207099675, 3939.9256459856624};
  const int64_t completed[] = {3000, 4000, 800, 1500, 1500, 6000, 2000};
  const int64_t prompt[] = {508, 509, 2047, 2065, 2065, 130, 224};  // 1525074/3000 = 508.36 ...
  const int64_t output[] = {515, 257, 1023, 507, 507, 255, 192};    // 1544818/3000 = 514.94 ...
  for (size_t i = 0; i < 7; ++i) {
    const store::BenchmarkRow& b = (*rows)[i];
    EXPECT_DOUBLE_EQ(b.measured_value, tput[i]) << i;
    EXPECT_EQ(b.batch_size, completed[i]) << i;  // Infinity, max_concurrency null: all at once
    EXPECT_EQ(b.sequence_tokens, prompt[i]) << i;
    EXPECT_EQ(b.output_tokens, output[i]) << i;
    EXPECT_EQ(b.engine, core::ServingEngine::kSglang) << i;
    EXPECT_EQ(b.gpu_count, 4) << i;
  }
  // Line 3 at a finite rate (Little's law needs request_throughput, which this bench_serving
  // version did not write), or at a concurrency past the bound, names its line.
  const std::string file = r.content();
  std::vector<std::string> lines = absl::StrSplit(file, '\n');
  const std::string line3 = lines[2];
  lines[2] = absl::StrReplaceAll(line3, {{"\"request_rate\": Infinity", "\"request_rate\": 4.0"}});
  r.set_content(absl::StrJoin(lines, "\n"));
  ExpectFieldError(r, "content line 3.request_throughput");
  lines[2] = absl::StrReplaceAll(line3, {{"\"max_concurrency\": null", "\"max_concurrency\": 1e9"}});
  r.set_content(absl::StrJoin(lines, "\n"));
  ExpectFieldError(r, "content line 3.max_concurrency");
  lines[2] = absl::StrReplaceAll(line3, {{"\"max_concurrency\": null", "\"max_concurrency\": 64"}});
  r.set_content(absl::StrJoin(lines, "\n"));
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[2].batch_size, 64);  // a closed loop of 64
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
  // elena-lyulina/Megatron-LM-Attention-Benchmark attn_bench/logs/2403450.out (trimmed, see the
  // README): a Llama-3 1B pretraining run, 56 ranks, srun --label prefixes (" 0: ", "55: "). The
  // log does not name the GPU; the request does.
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_MEGATRON, "megatron_llama3-1b_56gpu_gbs336_seq8192.log");
  r.set_model_name("Llama-3.2-1B");
  r.set_gpu_name("H100-SXM5-80GB");
  r.set_gpu_count(56);
  auto rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 1u);
  // Iterations 2..20 (1 is the first logged, warm-up); the 10th of their 19 times sorted,
  // 2352.3 ... 2610.0, 2622.9, 2625.8 ... 5696.8 (iteration 2), is 2622.9 ms.
  EXPECT_EQ((*rows)[0].workload, core::WorkloadKind::kTraining);
  EXPECT_EQ((*rows)[0].unit, core::MeasuredUnit::kSecondsPerStep);
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 2.6229);
  EXPECT_EQ((*rows)[0].batch_size, 336);        // "global batch size:   336"
  EXPECT_EQ((*rows)[0].sequence_tokens, 8192);  // " 0:   seq_length ...... 8192"
  EXPECT_EQ((*rows)[0].precision, core::Precision::kBf16);
  const std::string& note = (*rows)[0].source.note;
  EXPECT_NE(note.find("19 steady-state iterations (2..20"), std::string::npos) << note;
  EXPECT_NE(note.find("median 169.1 TFLOP/s/GPU"), std::string::npos) << note;
  r.set_warmup_steps(2);  // 3..20: (2610.0 + 2622.9) / 2
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 2.61645);
  r.set_warmup_steps(20);
  ExpectFieldError(r, "content: no steady-state Megatron-LM steps");
  r.set_warmup_steps(0);
  const std::string file = r.content();
  // A ramp-up: iterations 1..9 (lm loss 1.2...) at 168. The final batch's, 10..20, median 2610.0.
  r.set_content(absl::StrReplaceAll(
      file, {{"global batch size:   336 | lm loss: 1.2", "global batch size:   168 | lm loss: 1.2"}}));
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_DOUBLE_EQ((*rows)[0].measured_value, 2.61);
  EXPECT_EQ((*rows)[0].batch_size, 336);
  // torchrun's "[default0]:" prefix instead of srun's; no arguments dump: the request's length.
  r.set_content(absl::StrReplaceAll(file, {{" 0:   seq_length", "0: [default0]:   seq_length"}}));
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].sequence_tokens, 8192);
  r.set_content(absl::StrReplaceAll(file, {{" 0:   seq_length", " 0:   seq_len"}}));
  ExpectFieldError(r, "sequence_tokens");
  r.set_sequence_tokens(4096);
  rows = Rows(r);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].sequence_tokens, 4096);
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
  v1::ImportBenchmarkRequest r =
      Request(v1::BENCHMARK_FILE_FORMAT_MEGATRON, "megatron_llama3-1b_56gpu_gbs336_seq8192.log");
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
