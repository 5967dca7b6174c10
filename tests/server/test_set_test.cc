// Scores the frozen test set (docs/validation/test-set.csv: published results capplan was never
// built on) the way a new user would meet it: the shipped catalog, the published inputs, the
// catalog's default fabric for the GPU and the engine profiles. It prints only aggregates per regime (median
// |error|, share inside low-high, answered, refused by reason) and asserts only that every row
// is answered or refused with a reason, so nothing can be tuned to it
// (docs/validation/README.md says why).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/serving/serving.h"
#include "core/training/training.h"
#include "core/units.h"
#include "tests/core/validation_score.h"
#include "tests/server/shipped_catalog_test.h"
#include "tests/server/test_set_csv.h"

namespace capplan::server {
namespace {

using testing::Contains;
using testing::CsvRow;
using testing::IntAfter;
using testing::PlainInt;
using testing::StartsWith;

// One row's answer: published and capplan in the same unit, or why capplan refused.
struct Answer {
  double published = 0, point = 0, low = 0, high = 0;
  bool has_range = true;
  bool searched_instead = false;  // the published layout was rejected; the search answered
  std::string refused;
};

Answer Refusal(std::string reason) {
  Answer a;
  a.refused = std::move(reason);
  return a;
}

// The estimator's refusal, without the numbers that would make every reason distinct.
std::string EstimatorReason(const absl::Status& s) {
  std::string out = "estimator: ";
  bool in_number = false;
  for (char c : s.message().substr(0, 90)) {
    const bool digit = (c >= '0' && c <= '9') || (in_number && (c == '.' || c == ','));
    if (!digit)
      out += c;
    else if (!in_number)
      out += 'N';
    in_number = digit;
  }
  return out;
}

const std::string& Field(const CsvRow& r, const char* name) {
  static const std::string kEmpty;
  auto it = r.find(name);
  return it == r.end() ? kEmpty : it->second;
}

core::Precision TrainingPrecision(const std::string& p) {
  return StartsWith(p, "fp8") || Contains(p, "float8") ? core::Precision::kFp8 : core::Precision::kBf16;
}

core::Recompute RecomputeOf(const std::string& r, bool* known) {
  *known = true;
  if (StartsWith(r, "full")) return core::Recompute::kFull;
  if (StartsWith(r, "selective")) return core::Recompute::kSelective;
  if (StartsWith(r, "none")) return core::Recompute::kNone;
  *known = false;
  return core::Recompute::kNone;
}

struct TrainingSetup {
  core::TrainingJob job;
  core::ClusterSpec cluster;
  core::SearchOptions searched, pinned;
  core::ParallelConfig layout;  // the published layout, unstated degrees filled in
  bool pin = false;
  int gpus = 0;
  std::string refused;
};

class TestSetTest : public testing::ShippedCatalogTest {
 protected:
  TrainingSetup SetUpTraining(const CsvRow& r) {
    TrainingSetup s;
    const core::GpuRow* gpu = snap().FindGpu(Field(r, "gpu"));
    const core::ModelRow* model = snap().FindModel(Field(r, "model"));
    s.gpus = static_cast<int>(PlainInt(Field(r, "gpu_count")));
    const int64_t seq = PlainInt(Field(r, "seq_len"));
    if (gpu == nullptr)
      s.refused = "GPU not in the catalog";
    else if (model == nullptr)
      s.refused = "model not in the catalog";
    else if (Contains(Field(r, "sharding"), "offload"))
      s.refused = "CPU offload not modelled";
    else if (s.gpus <= 0 || seq <= 0)
      s.refused = "GPU count or sequence length not published";
    if (!s.refused.empty()) return s;
    core::TrainingJob& job = s.job;
    job.model = model->arch;
    job.sequence_length = seq;
    const std::string& p = Field(r, "precision");
    job.precision = TrainingPrecision(p);
    const std::string what = Field(r, "metric") + " " + p + " " + Field(r, "framework");
    job.method = Contains(what, "QLoRA") || Contains(p, "NF4")      ? core::TrainingMethod::kQlora
                 : Contains(what, "LoRA") || Contains(what, "lora") ? core::TrainingMethod::kLora
                                                                    : core::TrainingMethod::kFull;
    if (IntAfter(Field(r, "notes"), "rank ") > 0)
      job.lora_rank = static_cast<int>(IntAfter(Field(r, "notes"), "rank "));
    const int64_t batch = PlainInt(Field(r, "global_batch_seqs"));
    job.global_batch_tokens = batch > 0 ? static_cast<double>(batch * seq) : 0.0;  // 0: searched
    job.tokens = 1e12;
    // The fabric the service assumes for a GPU named without an offer (core/planner/supply.cc).
    const core::FabricRow* fabric =
        gpu->default_fabric_name.empty() ? nullptr : snap().FindFabric(gpu->default_fabric_name);
    s.cluster = core::ClusterSpec{gpu->spec, fabric != nullptr ? fabric->fabric : core::Fabric{}};
    s.searched.max_gpus = s.searched.min_gpus = s.gpus;
    s.searched.top_k = 1;
    s.pinned = s.searched;
    core::ParallelConfig& l = s.layout;
    const auto degree = [&](const char* name) {
      return static_cast<int>(std::max<long long>(0, PlainInt(Field(r, name))));
    };
    l.tp = std::max(1, degree("tp"));
    l.pp = std::max(1, degree("pp"));
    l.cp = std::max(1, degree("cp"));
    l.ep = std::max(1, degree("ep"));
    l.vpp = std::max(1, degree("vpp"));
    l.dp = degree("dp") > 0 ? degree("dp") : std::max(1, s.gpus / (l.tp * l.pp * l.cp));
    l.micro_batch = std::max<int64_t>(1, PlainInt(Field(r, "micro_batch")));
    const std::string& sharding = Field(r, "sharding");
    const bool sharded = Contains(sharding, "FSDP") && !Contains(sharding, "FSDP 0");
    l.zero_stage = sharded ? 3 : 0;
    bool recompute_known = false;
    l.recompute = RecomputeOf(Field(r, "recompute"), &recompute_known);
    s.pin = degree("tp") > 0 && degree("pp") > 0 && degree("dp") > 0;
    if (s.pin) {
      s.pinned.pinned = l;
      s.pinned.pinned.vpp = degree("vpp");  // 0: searched
    }
    s.pinned.pin_zero = sharded;
    s.pinned.pinned.zero_stage = l.zero_stage;
    s.pinned.pin_recompute = recompute_known;
    s.pinned.pinned.recompute = l.recompute;
    return s;
  }

  Answer Training(const CsvRow& r) {
    TrainingSetup s = SetUpTraining(r);
    if (!s.refused.empty()) return Refusal(s.refused);
    const core::Efficiency eff = core::TrainingEfficiency(s.job, s.cluster, snap().TrainingBenchmarks());
    Answer a;
    absl::StatusOr<core::SearchResult> res = core::SearchParallelism(s.job, s.cluster, eff, s.pinned);
    if (!res.ok() || res->ranked.empty()) {
      a.searched_instead = true;
      res = core::SearchParallelism(s.job, s.cluster, eff, s.searched);
    }
    if (!res.ok()) return Refusal(EstimatorReason(res.status()));
    if (res->ranked.empty()) return Refusal("no layout fits the GPUs");
    const core::TrainingEstimate& e = res->ranked.front();
    const double n = s.gpus;
    const double value = std::atof(Field(r, "published_value").c_str());
    a.published = Field(r, "unit") == "tokens/s/GPU" ? value : value / n;  // else a whole-job rate
    a.point = s.job.tokens / e.steady_duration_seconds / n;
    a.low = s.job.tokens / e.steady_duration_seconds_high / n;
    a.high = s.job.tokens / e.steady_duration_seconds_low / n;
    return a;
  }

  Answer Memory(const CsvRow& r) {
    if (Contains(Field(r, "metric"), "KV")) return ServingMemory(r);
    TrainingSetup s = SetUpTraining(r);
    if (!s.refused.empty()) return Refusal(s.refused);
    absl::StatusOr<core::MemoryBreakdown> m = core::TrainingMemoryPerGpu(s.job, s.layout);
    if (!m.ok()) return Refusal(EstimatorReason(m.status()));
    Answer a;
    a.published = PublishedBytes(r);
    a.point = a.low = a.high = m->TotalBytes();
    a.has_range = false;  // capplan gives memory as a point
    return a;
  }

  static double PublishedBytes(const CsvRow& r) {
    const double value = std::atof(Field(r, "published_value").c_str());
    return value * (StartsWith(Field(r, "unit"), "GiB") ? units::kGiB : 1e9);
  }

  // The "major.minor" right after the engine's name in a framework ("vLLM 0.6.3" or "vLLM v0.6.3"
  // -> 0.6), as a user would type the engine's release; 0.0 when none follows the name.
  static core::EngineVersion VersionIn(const std::string& f, const std::string& name) {
    core::EngineVersion v;
    if (!StartsWith(f, name)) return v;
    size_t i = name.size();
    while (i < f.size() && (f[i] == ' ' || f[i] == 'v' || f[i] == 'V')) ++i;
    if (i >= f.size() || f[i] < '0' || f[i] > '9') return v;
    const size_t dot = f.find('.', i);
    if (dot == std::string::npos || dot + 1 >= f.size() || f[dot + 1] < '0' || f[dot + 1] > '9') return v;
    v.major = std::min(core::kMaxEngineVersionComponent, std::atoi(f.substr(i, dot - i).c_str()));
    v.minor = std::min(core::kMaxEngineVersionComponent, std::atoi(f.c_str() + dot + 1));
    return v;
  }

  // Engine, GPU, model and precision of a serving row, or why it cannot be expressed.
  std::string ServingInputs(const CsvRow& r, core::ServingWorkload* w, const core::GpuRow** gpu) {
    *gpu = snap().FindGpu(Field(r, "gpu"));
    const core::ModelRow* model = snap().FindModel(Field(r, "model"));
    if (*gpu == nullptr) return "GPU not in the catalog";
    if (model == nullptr) return "model not in the catalog";
    const std::string& f = Field(r, "framework");
    // NIM's optimised profiles run TensorRT-LLM (NVIDIA NIM for LLMs documentation).
    if (StartsWith(f, "vLLM"))
      w->engine = core::ServingEngine::kVllm;
    else if (StartsWith(f, "TensorRT-LLM") || StartsWith(f, "NVIDIA NIM"))
      w->engine = core::ServingEngine::kTensorRtLlm;
    else if (StartsWith(f, "SGLang"))
      w->engine = core::ServingEngine::kSglang;
    else if (StartsWith(f, "llama.cpp"))
      w->engine = core::ServingEngine::kLlamaCpp;
    else
      return "engine not modelled";
    if (w->engine == core::ServingEngine::kVllm) w->engine_version = VersionIn(f, "vLLM");
    const std::string& p = Field(r, "precision");
    if (Contains(p, "FP4")) return "FP4 weights not modelled";
    w->model = model->arch;
    w->weight_precision = StartsWith(p, "fp8") ? core::Precision::kFp8 : core::Precision::kBf16;
    w->kv_precision = StartsWith(Field(r, "kv_dtype"), "fp8") ? core::Precision::kFp8 : core::Precision::kBf16;
    return "";
  }

  Answer ServingMemory(const CsvRow& r) {
    core::ServingWorkload w;
    const core::GpuRow* gpu = nullptr;
    const std::string why = ServingInputs(r, &w, &gpu);
    if (!why.empty()) return Refusal(why);
    const int tp = static_cast<int>(std::max<long long>(1, PlainInt(Field(r, "tp"))));
    absl::StatusOr<core::ServingMemory> m = core::ServingMemoryPerGpu(w, gpu->spec, tp);
    if (!m.ok()) return Refusal(EstimatorReason(m.status()));
    Answer a;
    a.published = PublishedBytes(r);
    a.point = a.low = a.high = m->kv_budget_bytes;
    a.has_range = false;
    return a;
  }

  Answer Serving(const CsvRow& r);
  absl::StatusOr<core::ServingEstimate> ServingAtLoad(const CsvRow& r, core::ServingWorkload w, const core::GpuRow& gpu,
                                                      int tp, int64_t replicas, std::string* refused);
};

// The estimate at the row's load: closed-loop concurrency (N requests in flight over the
// deployment's replicas, core::ServingWorkload::concurrent_requests), a static or offline batch
// (all requests at once), or an open-loop Poisson rate shared by the replicas (Little's law, as
// tests/server/published_serving_test.cc does). The estimate is one replica's.
absl::StatusOr<core::ServingEstimate> TestSetTest::ServingAtLoad(const CsvRow& r, core::ServingWorkload w,
                                                                 const core::GpuRow& gpu, int tp, int64_t replicas,
                                                                 std::string* refused) {
  const std::string& c = Field(r, "concurrency");
  const double rate = std::atof(Field(r, "request_rate_per_s").c_str());
  w.requests_per_second = rate > 0 ? rate : 1.0;
  const core::ServingEfficiency eff = core::ServingEfficiencyFor(w, gpu.spec, snap().ServingBenchmarks());
  if (PlainInt(c) > 0) {
    // A latency script runs its batch at once; a benchmark client keeps N requests in flight.
    w.batch_arrives_at_once = Contains(Field(r, "framework"), "latency");
    return core::EstimateServingAtBatch(w, gpu.spec, tp, (PlainInt(c) + replicas - 1) / replicas, eff);
  }
  const long long batch = StartsWith(c, "batch ") ? IntAfter(c, "batch ") : IntAfter(c, "max_num_seqs ");
  if (batch > 0) {
    w.batch_arrives_at_once = true;
    return core::EstimateServingAtBatch(w, gpu.spec, tp, batch, eff);
  }
  if (StartsWith(c, "offline")) return core::EstimateServing(w, gpu.spec, tp, eff);
  if (rate <= 0) {
    *refused = "load not published";
    return absl::InvalidArgumentError(*refused);
  }
  int64_t in_flight = 1;
  absl::StatusOr<core::ServingEstimate> e = core::EstimateServingAtBatch(w, gpu.spec, tp, in_flight, eff);
  for (int i = 0; i < 20 && e.ok(); ++i) {
    const int64_t next = std::clamp<int64_t>(std::llround(rate / static_cast<double>(replicas) * e->e2e_seconds), 1,
                                             core::kMaxServingBatch);
    if (next == in_flight) break;
    in_flight = next;
    e = core::EstimateServingAtBatch(w, gpu.spec, tp, in_flight, eff);
  }
  return e;
}

Answer TestSetTest::Serving(const CsvRow& r) {
  core::ServingWorkload w;
  const core::GpuRow* gpu = nullptr;
  std::string why = ServingInputs(r, &w, &gpu);
  if (!why.empty()) return Refusal(why);
  const long long isl = PlainInt(Field(r, "isl")), osl = PlainInt(Field(r, "osl"));
  if (isl <= 0) return Refusal("input length not published as a number");
  if (osl <= 0) return Refusal("output length not published as a number");
  w.prompt_tokens = isl;
  w.output_tokens = osl;
  const int gpus = static_cast<int>(std::max<long long>(1, PlainInt(Field(r, "gpu_count"))));
  const int tp = PlainInt(Field(r, "tp")) > 0 ? static_cast<int>(PlainInt(Field(r, "tp"))) : gpus;
  const double replicas = static_cast<double>(std::max(1, gpus / tp));
  absl::StatusOr<core::ServingEstimate> e = ServingAtLoad(r, w, *gpu, tp, std::max(1, gpus / tp), &why);
  if (!why.empty()) return Refusal(why);
  if (!e.ok()) return Refusal(EstimatorReason(e.status()));
  const std::string& metric = Field(r, "metric");
  Answer a;
  a.published = std::atof(Field(r, "published_value").c_str());
  if (Contains(metric, "inter-token")) {
    a.published /= 1e3;
    a.point = e->tpot_seconds, a.low = e->tpot_seconds_low, a.high = e->tpot_seconds_high;
  } else if (Contains(metric, "time to first token")) {
    a.published /= 1e3;
    a.point = e->ttft_seconds, a.low = e->ttft_seconds_low, a.high = e->ttft_seconds_high;
  } else if (Contains(metric, "end-to-end")) {
    const double steps = static_cast<double>(osl - 1);
    a.point = e->e2e_seconds;
    a.low = e->ttft_seconds_low + steps * e->tpot_seconds_low;
    a.high = e->ttft_seconds_high + steps * e->tpot_seconds_high;
  } else if (Contains(metric, "throughput") && !Contains(metric, "input")) {
    // "output ..." or a latency script's batch: output tokens; a bare "throughput" is vLLM's
    // benchmark_throughput figure, which counts prompt and output tokens.
    const bool output = Contains(metric, "output");
    const double tokens = replicas * static_cast<double>(output ? osl : isl + osl);
    a.point = e->requests_per_second_per_replica * tokens;
    a.low = e->requests_per_second_low * tokens;
    a.high = e->requests_per_second_high * tokens;
  } else {
    return Refusal("metric not estimated: " + metric);
  }
  return a;
}

TEST_F(TestSetTest, EveryRowIsAnsweredOrRefusedWithAReason) {
  const std::vector<CsvRow> rows = testing::ReadCsvRows(CAPPLAN_SOURCE_DIR "/docs/validation/test-set.csv");
  ASSERT_EQ(rows.size(), 66u) << "docs/validation/test-set.csv is frozen at 66 rows";
  std::map<std::string, testdata::RegimeScore> scores;
  std::map<std::string, int> searched_instead;
  for (const CsvRow& r : rows) {
    const std::string& regime = Field(r, "regime");
    Answer a = regime == "memory"                                         ? Memory(r)
               : StartsWith(regime, "serving")                            ? Serving(r)
               : StartsWith(regime, "dense") || StartsWith(regime, "moe") ? Training(r)
                                                                          : Refusal("unknown regime");
    const bool answered = a.refused.empty() && a.published > 0 && std::isfinite(a.point) && a.point > 0;
    EXPECT_TRUE(answered || !a.refused.empty()) << Field(r, "id") << ": neither answered nor refused with a reason";
    if (answered) {
      scores[regime].Answer(a.published, a.point, a.low, a.high, a.has_range);
      searched_instead[regime] += a.searched_instead ? 1 : 0;
    } else {
      scores[regime].Refuse(a.refused.empty() ? "no usable answer" : a.refused);
    }
  }
  testdata::PrintRegimeScores("Frozen test set (docs/validation/test-set.csv), aggregates only", scores);
  for (const auto& [regime, n] : searched_instead) {
    if (n > 0)
      std::printf("%s: published layout rejected by capplan's memory model, searched layout used: %d\n", regime.c_str(),
                  n);
  }
  int total = 0;
  for (const auto& [regime, s] : scores) total += s.rows;
  EXPECT_EQ(total, 66);
}

}  // namespace
}  // namespace capplan::server
