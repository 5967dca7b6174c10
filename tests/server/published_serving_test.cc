// Validation of the serving estimator against published engine results
// (tests/core/published_serving_results.h; sources in docs/validation/published-serving-results.md).
// These rows are never used for calibration: the estimator answers as the service would, with
// the shipped catalog's GPU and model rows and its serving benchmarks. The calibration rows of
// migrations/0009 and 0010 are different published measurements (llama.cpp Q4_0 pp512 and
// Llama 3 8B F16 tg512/pp512 on the RTX 4090, TensorRT-LLM Llama 3.1 8B FP8 128/2048 on the H100
// SXM); each calibrates only estimates under its engine on its GPU, so every other row tests the
// cited defaults of core/serving_engine.cc.
//
// Each row is estimated at its stated configuration: engine, GPU, tensor parallelism, weight
// and KV precision, batch (a static batch arrives at once), lengths. Rows with an unbounded
// load are estimated at the largest batch memory allows; rows at a Poisson rate at the
// concurrency Little's law gives (batch = rate x end-to-end latency). The test prints the
// table (id, metric, published, estimate, low-high, error) and checks that no published
// configuration is refused, the median error and the range coverage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/assumptions.h"
#include "core/serving/serving.h"
#include "tests/core/published_serving_results.h"
#include "tests/core/validation_score.h"
#include "tests/server/shipped_catalog_test.h"

namespace capplan::server {
namespace {

using core::ServingEngine;
using core::ServingEstimate;
using core::ServingWorkload;
using testdata::PublishedServingResult;

// The goals are a median |error| of 15% and 75% coverage. Measured on the 32 out-of-sample
// comparisons (the rows from a calibration row's table scored as refused, InSample below), with
// low-high from the residual band range.serving_nvidia: 12.9% and 26 of 32 inside (81%). With
// those rows and the efficiency-range low-high it was 12.4% and 34 of 42 (81%); the point
// estimates of the remaining rows did not move. The bounds hold that line: a change that makes
// the estimator worse on either fails here.
constexpr double kMedianErrorBound = 0.130;
constexpr double kCoverageBound = 26.0 / 32.0 - 1e-9;

// Rows from the same published table as a calibration row (docs/validation/README.md, rule 3):
// llama.cpp PR #4766's llama-bench table also gives migrations/0009's Q4_0 pp512 row, and
// TensorRT-LLM perf-overview.md v1.0's Llama 3.1 8B table its 128/2048 H100 row. Left in the
// file, scored as refused: a development row must test what calibration did not see.
bool InSample(const std::string& id) {
  static const char* const kIds[] = {
      "llamacpp-rtx4090-llama2-7b-f16-tg128",        "llamacpp-rtx4090-llama2-7b-q8-tg128",
      "llamacpp-rtx4090-llama2-7b-f16-pp512",        "trtllm-h100-llama3-8b-fp8-maxload-128-128",
      "trtllm-h100-llama3-8b-fp8-maxload-2048-2048", "trtllm-h200-llama3-8b-fp8-maxload-2048-2048",
      "trtllm-h200-llama3-8b-fp8-maxload-2048-128"};
  for (const char* k : kIds) {
    if (id == k) return true;
  }
  return false;
}

// The engines capplan models; lmdeploy, MLC LLM and ExLlama rows are printed as not modelled.
bool EngineOf(const std::string& name, ServingEngine* e) {
  if (name == "vllm")
    *e = ServingEngine::kVllm;
  else if (name == "tensorrt-llm")
    *e = ServingEngine::kTensorRtLlm;
  else if (name == "sglang")
    *e = ServingEngine::kSglang;
  else if (name == "llama.cpp")
    *e = ServingEngine::kLlamaCpp;
  else
    return false;
  return true;
}

core::Precision PrecisionOf(const std::string& p) {
  if (p == "fp8") return core::Precision::kFp8;
  if (p == "int8") return core::Precision::kInt8;
  if (p == "int4") return core::Precision::kInt4;
  if (p == "bf16") return core::Precision::kBf16;
  return core::Precision::kFp16;
}

struct Comparison {
  const PublishedServingResult* row = nullptr;
  const char* metric = "";
  double published = 0, point = 0, low = 0, high = 0;
  double Error() const { return point / published - 1.0; }
  bool InRange() const { return low <= published && published <= high; }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// The q-quantile of v, linearly interpolated between ranks (as published_runs_test.cc does).
double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(at);
  const double next = v[std::min(i + 1, v.size() - 1)];
  return v[i] + (next - v[i]) * (at - static_cast<double>(i));
}

// Published over estimated speed: throughput as published / estimated, a latency inverted.
double SpeedRatio(const Comparison& c) {
  const bool latency = std::string(c.metric).find("ms") != std::string::npos;
  return latency ? c.point / c.published : c.published / c.point;
}

class PublishedServingTest : public testing::ShippedCatalogTest {
 protected:
  // serving-nvidia or serving-other, by the catalog GPU's vendor.
  std::string Regime(const PublishedServingResult& r) {
    const core::GpuRow* gpu = snap().FindGpu(r.gpu);
    return gpu == nullptr || gpu->vendor == "NVIDIA" ? "serving-nvidia" : "serving-other";
  }

  // Why a row is not estimated; empty when it is.
  std::string Skip(const PublishedServingResult& r) {
    if (InSample(r.id)) return "in-sample: the table of a calibration row";
    ServingEngine e;
    if (!EngineOf(r.engine, &e)) return std::string("engine ") + r.engine + " not modelled";
    if (r.output_tokens <= 0) return "request lengths not published";
    if (r.input_tokens <= 0 && r.batch != 1) return "prompt length not published";
    return "";
  }

  // The estimate for one row, or the reason it was refused.
  absl::StatusOr<ServingEstimate> Estimate(const PublishedServingResult& r) {
    const core::GpuRow* gpu = snap().FindGpu(r.gpu);
    const core::ModelRow* model = snap().FindModel(r.model);
    if (gpu == nullptr || model == nullptr) return absl::NotFoundError(std::string(r.gpu) + " / " + r.model);
    ServingWorkload w;
    w.model = model->arch;
    EngineOf(r.engine, &w.engine);
    w.weight_precision = PrecisionOf(r.weight_precision);
    w.kv_precision = PrecisionOf(r.kv_precision);
    w.prompt_tokens = std::max<int64_t>(1, r.input_tokens);  // llama.cpp tg128: no prompt
    w.output_tokens = r.output_tokens;
    w.requests_per_second = r.requests_per_second > 0 ? r.requests_per_second : 1.0;
    const core::ServingEfficiency eff = core::ServingEfficiencyFor(w, gpu->spec, snap().ServingBenchmarks());
    const int tp = std::max(1, r.tensor_parallel);
    if (r.batch > 0) {
      w.batch_arrives_at_once = true;  // static batches: TensorRT-LLM, vLLM latency, llama-bench
      return core::EstimateServingAtBatch(w, gpu->spec, tp, r.batch, eff);
    }
    if (r.requests_per_second <= 0) return core::EstimateServing(w, gpu->spec, tp, eff);
    // Little's law: the concurrency a Poisson load keeps in flight, iterated to a fixed point.
    int64_t batch = 1;
    absl::StatusOr<ServingEstimate> e = core::EstimateServingAtBatch(w, gpu->spec, tp, batch, eff);
    for (int i = 0; i < 20 && e.ok(); ++i) {
      const int64_t next =
          std::clamp<int64_t>(std::llround(r.requests_per_second * e->e2e_seconds), 1, core::kMaxServingBatch);
      if (next == batch) break;
      batch = next;
      e = core::EstimateServingAtBatch(w, gpu->spec, tp, batch, eff);
    }
    return e;
  }

  static void Add(std::vector<Comparison>* out, const PublishedServingResult& r, const char* metric, double published,
                  double point, double low, double high) {
    if (published > 0) out->push_back({&r, metric, published, point, std::min(low, high), std::max(low, high)});
  }
};

TEST_F(PublishedServingTest, EstimatesMatchPublishedServingResults) {
  std::vector<Comparison> rows;
  std::map<std::string, testdata::RegimeScore> regimes;  // per comparison, as docs/validation/README.md
  int refused = 0, skipped = 0;
  for (const PublishedServingResult& r : testdata::kPublishedServingResults) {
    const std::string skip = Skip(r);
    if (!skip.empty()) {
      std::printf("| %s | skipped: %s |\n", r.id, skip.c_str());
      regimes[Regime(r)].Refuse(skip);
      ++skipped;
      continue;
    }
    absl::StatusOr<ServingEstimate> e = Estimate(r);
    if (!e.ok()) {
      ADD_FAILURE() << r.id << ": a configuration the engine ran was refused: " << e.status();
      regimes[Regime(r)].Refuse("estimator refused");
      ++refused;
      continue;
    }
    EXPECT_FALSE(e->batch_limited_by_memory && r.batch > 0)
        << r.id << ": published batch " << r.batch << " but the KV cache holds " << e->batch;
    const double out = static_cast<double>(r.output_tokens);
    const double total = static_cast<double>(std::max<int64_t>(1, r.input_tokens) + r.output_tokens);
    const bool at_rate = r.requests_per_second > 0;
    if (!at_rate) {  // at a stated rate the throughput is the rate: nothing to compare
      Add(&rows, r, "out tok/s", r.output_tokens_per_second, e->requests_per_second_per_replica * out,
          e->requests_per_second_low * out, e->requests_per_second_high * out);
      if (r.output_tokens_per_second <= 0) {
        Add(&rows, r, "total tok/s", r.total_tokens_per_second, e->requests_per_second_per_replica * total,
            e->requests_per_second_low * total, e->requests_per_second_high * total);
      }
      // Under a Poisson load TTFT is mostly queueing, which core/serving_queue.* models.
      Add(&rows, r, "TTFT ms", r.ttft_ms, 1e3 * e->ttft_seconds, 1e3 * e->ttft_seconds_low, 1e3 * e->ttft_seconds_high);
    }
    Add(&rows, r, "TPOT ms", r.tpot_ms, 1e3 * e->tpot_seconds, 1e3 * e->tpot_seconds_low, 1e3 * e->tpot_seconds_high);
  }
  std::printf("| id | metric | published | estimate | low-high | error |\n|---|---|---|---|---|---|\n");
  std::vector<double> errors;
  int in_range = 0;
  for (const Comparison& c : rows) {
    errors.push_back(std::fabs(c.Error()));
    regimes[Regime(*c.row)].Answer(c.published, c.point, c.low, c.high, true);
    in_range += c.InRange() ? 1 : 0;
    std::printf("| %s | %s | %.4g | %.4g | %.4g-%.4g | %+.1f%%%s |\n", c.row->id, c.metric, c.published, c.point, c.low,
                c.high, 100 * c.Error(), c.InRange() ? "" : " (outside)");
  }
  const double coverage = rows.empty() ? 0 : static_cast<double>(in_range) / static_cast<double>(rows.size());
  std::printf("%zu comparisons (%d rows skipped, %d refused): median |error| %.1f%%, %d inside low-high (%.0f%%)\n",
              rows.size(), skipped, refused, 100 * Median(errors), in_range, 100 * coverage);
  testdata::PrintRegimeScores(
      "Development set, serving (tests/core/published_serving_results.h; one row per comparison)", regimes);
  // The serving band answers carry (range.serving_nvidia, core/assumptions.h) is the 10th-90th
  // percentile of these ratios: a model change that moves them fails here until the band is
  // derived again and docs/validation/README.md says so. No row is on another vendor's part.
  std::vector<double> nvidia;
  for (const Comparison& c : rows) {
    if (Regime(*c.row) == "serving-nvidia") nvidia.push_back(SpeedRatio(c));
  }
  ASSERT_FALSE(nvidia.empty());
  std::printf("serving-nvidia speed ratio p10 %.3f, p90 %.3f over %zu comparisons\n", Percentile(nvidia, 0.1),
              Percentile(nvidia, 0.9), nvidia.size());
  EXPECT_NEAR(Percentile(nvidia, 0.1), core::assumptions::kRangeServingNvidia.value.low, 0.001);
  EXPECT_NEAR(Percentile(nvidia, 0.9), core::assumptions::kRangeServingNvidia.value.high, 0.001);
  // Other vendors: the NVIDIA band times the widest relative spread of the AMD vendor factors.
  namespace a = core::assumptions;
  const core::Range bw = a::kAmdInstinctBandwidthFactor.value, fl = a::kAmdInstinctComputeFactor.value;
  EXPECT_NEAR(a::kRangeServingOther.value.low,
              a::kRangeServingNvidia.value.low * std::min(bw.low / bw.point, fl.low / fl.point), 0.001);
  EXPECT_NEAR(a::kRangeServingOther.value.high,
              a::kRangeServingNvidia.value.high * std::max(bw.high / bw.point, fl.high / fl.point), 0.001);
  EXPECT_EQ(refused, 0);
  EXPECT_GE(rows.size(), 15u);
  EXPECT_LE(Median(errors), kMedianErrorBound) << "median |error| " << Median(errors);
  EXPECT_GE(coverage, kCoverageBound);
}

TEST_F(PublishedServingTest, ShippedGpuMemoryIsTheDatasheetGiB) {
  // "80 GB" of HBM3 on an H100 is 80 GiB (nvidia-smi reports 81,559 MiB of it to CUDA);
  // migrations/0007 replaced 0002's decimal figures.
  const core::GpuRow* h100 = snap().FindGpu("H100-SXM5-80GB");
  const core::GpuRow* h200 = snap().FindGpu("H200-SXM-141GB");
  ASSERT_NE(h100, nullptr);
  ASSERT_NE(h200, nullptr);
  EXPECT_DOUBLE_EQ(h100->spec.memory_bytes, 85899345920.0);
  EXPECT_DOUBLE_EQ(h200->spec.memory_bytes, 141.0 * 1073741824.0);
}

}  // namespace
}  // namespace capplan::server
