// Measured runs read from the files benchmark and training tools write, for import as
// benchmark rows: vLLM's benchmarks/benchmark_serving.py --save-result JSON, SGLang's
// bench_serving JSONL, MLPerf inference's mlperf_log_summary.txt, torchtitan's and
// Megatron-LM's training logs. Pure: a JSON file arrives already parsed into its top-level
// fields (the server parses it, server/api/bench_import_json.cc), a text file as text. Every
// number read from a file is bounded here; an error names the file's own key or line.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/efficiency.h"
#include "core/hf_config.h"
#include "core/serving/serving_engine.h"

namespace capplan::core::bench_import {

enum class Format { kVllm = 0, kSglang, kMlperf, kTorchtitan, kMegatron };
inline constexpr std::array<const char*, 5> kFormatNames = {"vllm", "sglang", "mlperf", "torchtitan", "megatron"};
const char* FormatName(Format f);

// A JSON object's top-level members (the value type config.json reading uses: numbers,
// strings, booleans, null, and the sizes of lists and objects).
using JsonFields = std::map<std::string, HfConfigValue>;

// What one run measured. Zero counts: the file does not say (the request may).
struct MeasuredRun {
  WorkloadKind workload = WorkloadKind::kServing;
  double value = 0;
  MeasuredUnit unit = MeasuredUnit::kTokensPerSecond;
  // Serving: requests in flight (a closed loop's concurrency); training: the global batch in
  // sequences.
  int64_t batch = 0;
  int64_t prompt_tokens = 0;  // serving: mean prompt tokens; training: the sequence length
  int64_t output_tokens = 0;  // serving: mean output tokens
  // The engine the file names (its "backend"), when it is one capplan models.
  std::optional<ServingEngine> engine;
  std::string note;  // what was read and how, for the row's source note
};

// vLLM benchmark_serving / `vllm bench serve` --save-result: output tokens/s
// (output_throughput) at the run's concurrency: max_concurrency, every request (rate inf), or
// for a finite request_rate the mean in flight by Little's law. One object: a file of several
// (--append-result's JSON Lines) is read line by line by the server.
absl::StatusOr<MeasuredRun> FromVllmResult(const JsonFields& f);
// One line of SGLang bench_serving's --output-file JSONL, read the same way.
absl::StatusOr<MeasuredRun> FromSglangResult(const JsonFields& f);
// An MLPerf inference mlperf_log_summary.txt: a VALID Offline run's tokens per second
// (output tokens/s) or, without one, samples per second (requests/s). Other scenarios measure
// latency-bound load and are refused.
absl::StatusOr<MeasuredRun> FromMlperfSummary(absl::string_view text);

struct TrainingLogOptions {
  int gpu_count = 0;  // GPUs of the run (torchtitan's tps is per GPU)
  // Steps numbered at most this are warm-up; the first logged step always is.
  int64_t warmup_steps = 0;
};
// A torchtitan log ("step: 10  loss: ...  tps: 7,034  tflops: ...  mfu: ...%"): the median
// tps over the steady-state steps times the GPU count, cluster tokens/s.
absl::StatusOr<MeasuredRun> FromTorchtitanLog(absl::string_view text, const TrainingLogOptions& o);
// A Megatron-LM log (" iteration 100/ 1000 | ... | elapsed time per iteration (ms): ... |
// ... | global batch size: 128 |"): the median seconds per iteration over the steady-state
// iterations at the final global batch size, and the seq_length of its arguments dump. Lines
// may carry a launcher's prefix (srun --label's " 0: ", torchrun's "[default0]:").
absl::StatusOr<MeasuredRun> FromMegatronLog(absl::string_view text, const TrainingLogOptions& o);

}  // namespace capplan::core::bench_import
