// capplan admin import-benchmark: a benchmark tool's own output file (vLLM, SGLang, MLPerf
// inference, torchtitan, Megatron-LM) as benchmark rows that calibrate the next Plan.
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "client/cli/admin.h"

namespace capplan::cli {

namespace {

const CommandInfo kImportBenchmark = {
    "admin import-benchmark",
    "import measured runs from a benchmark tool's output file as benchmark rows (re-importing writes nothing)",
    "--format=vllm|sglang|mlperf|torchtitan|megatron --file=PATH --model=NAME (--gpu=NAME --gpu_count=N | "
    "--instance=TYPE) --citation=TEXT --as_of_date=YYYY-MM-DD [flags]",
    "  capplan admin import-benchmark --format=vllm --file=vllm-0.6.3-qps-inf-c64.json --model=Llama-3-8B \\\n"
    "    --gpu=H100-SXM5-80GB --gpu_count=1 --citation=\"our vLLM run, 2026-11\" --as_of_date=2026-11-30\n"
    "  capplan admin import-benchmark --format=torchtitan --file=train.log --model=Llama-3-8B \\\n"
    "    --instance=p5.48xlarge --sequence_tokens=8192 --citation=\"our torchtitan run\" --as_of_date=2026-11-30"};

void AddImportFlags(FlagSet* flags, v1::ImportBenchmarkRequest* r, std::string* file) {
  EnumField<v1::BenchmarkFileFormat>(
      flags, "format", "vllm|sglang|mlperf|torchtitan|megatron", "the tool that wrote --file", "",
      "BENCHMARK_FILE_FORMAT_", v1::BenchmarkFileFormat_Parse, [r](v1::BenchmarkFileFormat f) { r->set_format(f); });
  flags->String("file", "PATH", "the tool's output file (at most 3 MiB)", file);
  flags->Custom("model", "NAME", "catalog model that ran (required)", "",
                [r](const std::string& v) { return r->set_model_name(v), absl::OkStatus(); });
  flags->Custom("gpu", "NAME", "catalog GPU (or --instance)", "",
                [r](const std::string& v) { return r->set_gpu_name(v), absl::OkStatus(); });
  IntField(flags, "gpu_count", "GPUs the file's figure covers (default: --instance's)", "", 1, 65536,
           [r](int64_t n) { r->set_gpu_count(static_cast<int32_t>(n)); });
  flags->Custom("instance", "TYPE", "catalog instance type the run used: GPU, GPU count and fabric", "",
                [r](const std::string& v) { return r->set_instance_type(v), absl::OkStatus(); });
  flags->Custom("fabric", "NAME", "catalog fabric of the run (default: --instance's, else the GPU's)", "",
                [r](const std::string& v) { return r->set_fabric_name(v), absl::OkStatus(); });
  EnumField<v1::ServingEngine>(flags, "engine", "vllm|tensorrt_llm|sglang|llama_cpp",
                               "serving engine (default: the file's backend, else the format's; MLPerf: required)", "",
                               "SERVING_ENGINE_", v1::ServingEngine_Parse,
                               [r](v1::ServingEngine e) { r->set_serving_engine(e); });
  EnumField<v1::Precision>(flags, "precision", "fp32|tf32|fp16|bf16|fp8|int8|int4",
                           "the run's precision (default: fp16 serving, bf16 training)", "", "PRECISION_",
                           v1::Precision_Parse, [r](v1::Precision p) { r->set_precision(p); });
  IntField(flags, "replicas", "serving: identical servers the figure covers; each row is one", "1", 1, 65536,
           [r](int64_t n) { r->set_replicas(static_cast<int32_t>(n)); });
  IntField(flags, "sequence_tokens", "where the file lacks it: MLPerf prompt tokens, training sequence", "", 1, 1 << 24,
           [r](int64_t n) { r->set_sequence_tokens(n); });
  IntField(flags, "output_tokens", "where the file lacks it: MLPerf output tokens", "", 1, 1 << 24,
           [r](int64_t n) { r->set_output_tokens(n); });
  IntField(flags, "batch_size", "torchtitan: the global batch in sequences", "", 1, 1 << 24,
           [r](int64_t n) { r->set_global_batch_sequences(n); });
  IntField(flags, "warmup_steps", "training logs: steps numbered at most this are warm-up (the first always is)", "0",
           0, int64_t{1} << 40, [r](int64_t n) { r->set_warmup_steps(n); });
}

void PrintImport(const v1::ImportBenchmarkResponse& resp) {
  std::cout << resp.benchmarks_size() << " measured run(s): " << resp.rows_written() << " written, "
            << resp.rows_unchanged() << " already in the catalog; catalog version " << resp.catalog_version() << "\n";
  for (const v1::Benchmark& b : resp.benchmarks()) {
    std::cout << "  #" << b.id() << " " << b.gpu_count() << " x " << b.gpu_name() << " " << b.model_name() << ": "
              << b.measured_value() << " " << b.measured_unit();
    if (b.batch_size() > 0) std::cout << ", batch " << b.batch_size();
    if (b.sequence_tokens() > 0) std::cout << ", " << b.sequence_tokens() << "+" << b.output_tokens() << " tokens";
    std::cout << "\n    " << b.source().note() << "\n";
  }
}

}  // namespace

int ImportBenchmark(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::ImportBenchmarkRequest r;
  std::string file;
  RowSourceFlags source;
  AddImportFlags(&flags, &r, &file);
  AddRowSourceFlags(&flags, &source);
  const int rc = ParseCommandFlags(kImportBenchmark, args, &flags, global);
  if (rc >= 0) return rc;
  absl::StatusOr<std::string> content = ReadFile(file);
  if (!content.ok()) return UsageError(kImportBenchmark.path, absl::StrCat("--file: ", content.status().message()));
  r.set_content(*std::move(content));
  SetSource(source, r.mutable_source());
  r.set_request_id(source.request_id);
  absl::StatusOr<std::unique_ptr<client::Client>> c = AdminClient(*global);
  if (!c.ok()) return Fail(c.status());
  absl::StatusOr<v1::ImportBenchmarkResponse> resp = (*c)->ImportBenchmark(r);
  if (!resp.ok()) return Fail(resp.status());
  if (global->json) return PrintJson(*resp), 0;
  PrintImport(*resp);
  return 0;
}

}  // namespace capplan::cli
