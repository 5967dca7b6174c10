// Training logs: torchtitan's step lines and Megatron-LM's iteration lines, reduced to their
// steady state (warm-up steps skipped, the median of the rest).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "core/bench_import/bench_import.h"
#include "core/bench_import/bench_import_internal.h"
#include "core/validate.h"

namespace capplan::core::bench_import {

using internal::kMaxRowCount;
using internal::kMaxStepNumber;
using internal::kMaxThroughput;
using internal::Median;
using internal::NumberAfter;
using internal::StepRecord;

namespace {

// Per GPU: far above any accelerator's tokens/s or TFLOP/s.
constexpr double kMaxTokensPerSecondPerGpu = 1e8;
constexpr double kMaxTflopsPerGpu = 1e5;
// One iteration: up to a day, in milliseconds.
constexpr double kMaxIterationMilliseconds = 86400e3;
constexpr int kMaxGpus = 65536;
constexpr double kMillisecondsPerSecond = 1e3;
constexpr double kMaxPercent = 100;

std::string LineField(size_t line, const char* key) { return absl::StrCat("content line ", line, " ", key); }

// torchtitan's training step number: "step: 10" (not "validate step: 1").
std::optional<int64_t> TrainingStep(absl::string_view line) {
  constexpr absl::string_view kKey = "step:";
  constexpr absl::string_view kValidate = "validate ";
  for (size_t at = line.find(kKey); at != absl::string_view::npos; at = line.find(kKey, at + 1)) {
    if (at >= kValidate.size() && line.substr(at - kValidate.size(), kValidate.size()) == kValidate) continue;
    if (at > 0 && std::isalpha(static_cast<unsigned char>(line[at - 1]))) continue;
    std::optional<double> n = NumberAfter(line.substr(at), kKey);
    if (n && *n >= 0 && *n <= static_cast<double>(kMaxStepNumber) && *n == std::floor(*n)) {
      return static_cast<int64_t>(*n);
    }
  }
  return std::nullopt;
}

absl::Status Bounded(size_t line, const char* key, double v, double lo, double hi) {
  return CheckRange(LineField(line, key), v, lo, hi);
}

absl::Status NoSteadySteps(const char* tool, const std::map<int64_t, StepRecord>& steps, int64_t warmup) {
  return FieldError("content", absl::StrCat("no steady-state ", tool, " steps: ", steps.size(),
                                            " logged, and the first one and any numbered at most warmup_steps ", warmup,
                                            " are warm-up; log more steps or lower warmup_steps"));
}

}  // namespace

absl::StatusOr<MeasuredRun> FromTorchtitanLog(absl::string_view text, const TrainingLogOptions& o) {
  CAPPLAN_RETURN_IF_ERROR(CheckRange("gpu_count", static_cast<int64_t>(o.gpu_count), 1, kMaxGpus));
  std::map<int64_t, StepRecord> steps;  // each rank may log the step: the first line of each
  size_t line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    std::optional<int64_t> step = TrainingStep(line);
    std::optional<double> tps = step ? NumberAfter(line, "tps:") : std::nullopt;
    if (!tps) continue;
    CAPPLAN_RETURN_IF_ERROR(Bounded(line_no, "tps", *tps, 0, kMaxTokensPerSecondPerGpu));
    StepRecord r;
    r.value = *tps;
    r.extra = NumberAfter(line, "mfu:").value_or(0);
    CAPPLAN_RETURN_IF_ERROR(Bounded(line_no, "mfu", r.extra, 0, kMaxPercent));
    steps.emplace(*step, r);
  }
  const auto steady = internal::SteadySteps(steps, o.warmup_steps);
  if (steady.empty()) return NoSteadySteps("torchtitan", steps, o.warmup_steps);
  std::vector<double> tps, mfu;
  for (const auto& [n, r] : steady) {
    if (r.value > 0) tps.push_back(r.value);
    if (r.extra > 0) mfu.push_back(r.extra);
  }
  if (tps.empty()) return FieldError("content", "every steady-state torchtitan step logs tps 0");
  MeasuredRun out;
  out.workload = WorkloadKind::kTraining;
  out.unit = MeasuredUnit::kTokensPerSecond;
  out.value = Median(tps) * o.gpu_count;
  CAPPLAN_RETURN_IF_ERROR(CheckRange("tps x gpu_count", out.value, 0.0, kMaxThroughput));
  out.note = absl::StrFormat(
      "torchtitan log: median tps %.6g per GPU x %d GPUs over %d steady-state steps (%s; warm-up skipped)%s",
      Median(tps), o.gpu_count, steady.size(), internal::StepSpan(steady),
      mfu.empty() ? std::string() : absl::StrFormat(", median mfu %.4g%%", Median(mfu)));
  return out;
}

namespace {

// Megatron-LM's iteration number: the first "iteration" followed by a number.
std::optional<int64_t> Iteration(absl::string_view line) {
  constexpr absl::string_view kKey = "iteration";
  for (size_t at = line.find(kKey); at != absl::string_view::npos; at = line.find(kKey, at + 1)) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line.substr(at + kKey.size()));
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest.front()))) continue;
    std::optional<double> n = NumberAfter(rest, "");
    if (n && *n <= static_cast<double>(kMaxStepNumber)) return static_cast<int64_t>(*n);
  }
  return std::nullopt;
}

// The arguments dump's "  seq_length ........ 4096", also behind the prefix a launcher puts on
// every line (srun --label's " 0: ", torchrun's "[default0]:"): the word seq_length, a run of
// dots, the value last. 0 when the line is another.
absl::StatusOr<int64_t> SeqLength(absl::string_view line, size_t line_no) {
  if (!absl::StrContains(line, "seq_length")) return 0;
  const std::vector<absl::string_view> words = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  const auto dots = [](absl::string_view w) { return w.find_first_not_of('.') == absl::string_view::npos; };
  if (words.size() < 3 || words[words.size() - 3] != "seq_length" || !dots(words[words.size() - 2])) return 0;
  int64_t n = 0;
  if (!absl::SimpleAtoi(words.back(), &n)) return FieldError(LineField(line_no, "seq_length"), "not a number");
  CAPPLAN_RETURN_IF_ERROR(CheckRange(LineField(line_no, "seq_length"), n, 1, kMaxRowCount));
  return n;
}

// One iteration line's figures; nullopt for other lines.
absl::StatusOr<std::optional<std::pair<int64_t, StepRecord>>> IterationLine(absl::string_view line, size_t line_no) {
  std::optional<double> ms = NumberAfter(line, "elapsed time per iteration (ms):");
  std::optional<int64_t> it = ms ? Iteration(line) : std::nullopt;
  if (!it) return std::optional<std::pair<int64_t, StepRecord>>();
  CAPPLAN_RETURN_IF_ERROR(Bounded(line_no, "elapsed time per iteration (ms)", *ms, 0, kMaxIterationMilliseconds));
  std::optional<double> gbs = NumberAfter(line, "global batch size:");
  if (!gbs) return FieldError(LineField(line_no, "global batch size"), "required on every iteration line");
  CAPPLAN_RETURN_IF_ERROR(Bounded(line_no, "global batch size", *gbs, 1, static_cast<double>(kMaxRowCount)));
  StepRecord r;
  r.value = *ms;
  r.batch = static_cast<int64_t>(*gbs);
  r.extra = NumberAfter(line, "throughput per GPU (TFLOP/s/GPU):").value_or(0);
  CAPPLAN_RETURN_IF_ERROR(Bounded(line_no, "throughput per GPU (TFLOP/s/GPU)", r.extra, 0, kMaxTflopsPerGpu));
  return std::optional<std::pair<int64_t, StepRecord>>(std::make_pair(*it, r));
}

}  // namespace

absl::StatusOr<MeasuredRun> FromMegatronLog(absl::string_view text, const TrainingLogOptions& o) {
  std::map<int64_t, StepRecord> steps;
  int64_t seq = 0;
  size_t line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::StatusOr<int64_t> s = SeqLength(line, line_no);
    if (!s.ok()) return s.status();
    if (*s > 0 && seq == 0) seq = *s;
    auto rec = IterationLine(line, line_no);
    if (!rec.ok()) return rec.status();
    if (rec->has_value()) steps.emplace((*rec)->first, (*rec)->second);
  }
  auto steady = internal::SteadySteps(steps, o.warmup_steps);
  if (steady.empty()) return NoSteadySteps("Megatron-LM", steps, o.warmup_steps);
  // A batch-size ramp-up is not the steady state: only iterations at the final batch size.
  const int64_t batch = steady.back().second.batch;
  steady.erase(std::remove_if(steady.begin(), steady.end(), [&](const auto& s) { return s.second.batch != batch; }),
               steady.end());
  std::vector<double> ms, tflops;
  for (const auto& [n, r] : steady) {
    ms.push_back(r.value);
    if (r.extra > 0) tflops.push_back(r.extra);
  }
  MeasuredRun out;
  out.workload = WorkloadKind::kTraining;
  out.unit = MeasuredUnit::kSecondsPerStep;
  out.value = Median(ms) / kMillisecondsPerSecond;
  if (out.value <= 0) return FieldError("content", "the steady-state iterations take 0 ms");
  out.batch = batch;
  out.prompt_tokens = seq;
  out.note = absl::StrFormat(
      "Megatron-LM log: median elapsed time per iteration %.6g ms over %d steady-state iterations (%s; warm-up "
      "skipped) at global batch size %d%s",
      Median(ms), ms.size(), internal::StepSpan(steady), batch,
      tflops.empty() ? std::string() : absl::StrFormat(", median %.4g TFLOP/s/GPU", Median(tflops)));
  return out;
}

}  // namespace capplan::core::bench_import
