// In-process cost of Plan/Compare/Tco over the shipped catalog (Google Benchmark): the server
// time a scheduler's call spends outside gRPC. `build/tests/server/capplan_planning_bench`.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/training/layout_cache.h"
#include "server/allocator.h"
#include "server/planning/planning.h"
#include "server/store/catalog_store.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

std::shared_ptr<const store::CatalogSnapshot> Snapshot() {
  static std::shared_ptr<const store::CatalogSnapshot> snap = [] {
    char tmpl[] = "/tmp/capplan-bench-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    auto store = store::CatalogStore::Open({dir + "/c.db"});
    auto s = (*store)->Snapshot();
    std::filesystem::remove_all(dir);
    return s;
  }();
  return snap;
}

void BM_PlanServing(benchmark::State& state) {
  v1::PlanRequest r;
  v1::ServingWorkload* w = r.mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  w->set_tpot_slo_seconds(0.05);
  auto snap = Snapshot();
  for (auto _ : state) {
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp));
  }
}
BENCHMARK(BM_PlanServing);
BENCHMARK(BM_PlanServing)->Name("FixedPlanServing")->Iterations(200);

void BM_PlanTraining(benchmark::State& state) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(2e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  auto snap = Snapshot();
  for (auto _ : state) {
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp));
  }
}
BENCHMARK(BM_PlanTraining);
BENCHMARK(BM_PlanTraining)->Name("FixedPlanTraining")->Iterations(100);

// Pre-training at cluster scale with no GPU limit: Llama 3.1 405B on 15.6T tokens (Dubey et
// al. 2024), the batch searched, every offer scanned to the fleet size where it stops helping.
void BM_PlanPretraining(benchmark::State& state) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-3.1-405B");
  r.mutable_training()->set_tokens(15.6e12);
  r.mutable_training()->set_sequence_tokens(8192);
  r.set_objective(state.range(0) == 0 ? v1::OBJECTIVE_CHEAPEST : v1::OBJECTIVE_FASTEST);
  auto snap = Snapshot();
  for (auto _ : state) {
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp));
  }
}
BENCHMARK(BM_PlanPretraining)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A scheduler's distinct questions: every call moves the token count (training) or the
// offered load (serving) by a tiny step, as `capplan-loadgen --distinct` does, so no two
// calls are the same question. Arg 0: serving (Llama-2-7B), 1: LoRA (Llama-2-7B, 2B
// tokens), 2: Llama-3-8B pre-training within a 7-day deadline, 3: Llama-3.1-405B on 15.6T
// tokens within 60 days. Arg 1: 1 with the server's layout cache (warm after the first
// call), 0 without.
v1::PlanRequest DistinctQuestion(int64_t kind) {
  v1::PlanRequest r;
  if (kind == 0) {
    v1::ServingWorkload* w = r.mutable_serving();
    w->set_model_name("Llama-2-7B");
    w->set_prompt_tokens(512);
    w->set_output_tokens(128);
    w->set_requests_per_second(35);
    w->set_tpot_slo_seconds(0.05);
    return r;
  }
  v1::TrainingWorkload* t = r.mutable_training();
  switch (kind) {
    case 1:
      t->set_model_name("Llama-2-7B");
      t->set_tokens(2e9);
      t->set_method(v1::TRAINING_METHOD_LORA);
      break;
    case 2:
      t->set_model_name("Llama-3-8B");
      t->set_tokens(1e11);
      r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
      r.set_deadline_seconds(7 * 86400);
      break;
    default:
      t->set_model_name("Llama-3.1-405B");
      t->set_tokens(15.6e12);
      t->set_sequence_tokens(8192);
      r.set_objective(v1::OBJECTIVE_CHEAPEST_WITHIN_DEADLINE);
      r.set_deadline_seconds(60 * 86400);
      break;
  }
  return r;
}

void BM_DistinctPlan(benchmark::State& state) {
  const v1::PlanRequest base = DistinctQuestion(state.range(0));
  auto snap = Snapshot();
  // One cache per question kind for the whole process, as the server keeps one: the
  // benchmark's repeated runs (its iteration-count probes) stay warm after the first call.
  static std::map<int64_t, core::TrainingLayoutCache> layouts;
  core::TrainingLayoutCache* cache = state.range(1) != 0 ? &layouts[state.range(0)] : nullptr;
  int64_t step = 0;
  for (auto _ : state) {
    v1::PlanRequest r = base;
    ++step;
    if (r.has_serving()) {
      r.mutable_serving()->set_requests_per_second(r.serving().requests_per_second() + 1e-6 * step);
    } else {
      r.mutable_training()->set_tokens(r.training().tokens() + step);
    }
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp, cache));
  }
}
BENCHMARK(BM_DistinctPlan)
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1}})
    ->ArgNames({"kind", "cache"})
    ->Unit(benchmark::kMicrosecond);

void BM_Tco(benchmark::State& state) {
  v1::TcoRequest r;
  r.set_horizon_months(36);
  v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_rent()->set_price_usd_per_month(15000);
  auto snap = Snapshot();
  for (auto _ : state) {
    v1::TcoResponse resp;
    benchmark::DoNotOptimize(Tco(*snap, r, &resp));
  }
}
BENCHMARK(BM_Tco);

// A catalog of the shipped 60 offers plus `extra` generated ones over the same 8 GPU types
// in 1-8 GPU shapes (22 shapes), one price per region: what importing public price lists
// gives. Plan's cost should follow the shapes, not the offers.
std::shared_ptr<const store::CatalogSnapshot> GrownSnapshot(int extra) {
  static std::map<int, std::shared_ptr<const store::CatalogSnapshot>> cache;
  auto it = cache.find(extra);
  if (it != cache.end()) return it->second;
  char tmpl[] = "/tmp/capplan-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto store = store::CatalogStore::Open({dir + "/c.db"});
  const std::pair<const char*, std::vector<int>> gpus[] = {{"A100-SXM4-80GB", {1, 2, 4, 8}},
                                                           {"H100-SXM5-80GB", {1, 2, 4, 8}},
                                                           {"L4", {1, 2, 4, 8}},
                                                           {"A10G", {1, 4, 8}},
                                                           {"L40S", {1, 4, 8}},
                                                           {"H200-SXM-141GB", {8}},
                                                           {"A100-SXM4-40GB", {8}},
                                                           {"T4", {1, 4}}};
  std::string csv = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n";
  int n = 0;
  for (int region = 0; n < extra; ++region) {
    for (const auto& [gpu, counts] : gpus) {
      for (int c : counts) {
        if (n++ >= extra) break;
        absl::StrAppend(&csv, "gen-", gpu, "-x", c, ",", gpu, ",", c, ",", 8 * c, ",", 64 * c, ",",
                        1.0 * c + 0.001 * region, ",,region-", region, "\n");
      }
    }
  }
  if (extra > 0) {
    // Generated prices ($1 per GPU-hour) sit outside the catalog's range for some GPUs.
    store::ImportOptions force;
    force.force = true;
    auto r = (*store)->ImportPricesCsv({"bench", "ImportPricesCsv"}, "gen", csv, {"generated", "2026-01-01", ""},
                                       1767225600, force);
    if (!r.ok() || !r->errors.empty()) std::abort();
  }
  auto s = (*store)->Snapshot();
  std::filesystem::remove_all(dir);
  return cache[extra] = s;
}

// Plan over a grown catalog: Arg(0) is the number of offers added to the shipped 60.
void BM_PlanServingOffers(benchmark::State& state) {
  v1::PlanRequest r;
  v1::ServingWorkload* w = r.mutable_serving();
  w->set_model_name("Llama-2-7B");
  w->set_prompt_tokens(512);
  w->set_output_tokens(128);
  w->set_requests_per_second(35);
  w->set_tpot_slo_seconds(0.05);
  r.set_view(state.range(1) == 0 ? v1::VIEW_BASIC : v1::VIEW_FULL);
  auto snap = GrownSnapshot(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp));
  }
  state.counters["offers"] = static_cast<double>(snap->instances.size());
}
BENCHMARK(BM_PlanServingOffers)->ArgsProduct({{0, 940, 4940}, {0, 1}})->ArgNames({"extra", "full"});

void BM_PlanTrainingOffers(benchmark::State& state) {
  v1::PlanRequest r;
  r.mutable_training()->set_model_name("Llama-2-7B");
  r.mutable_training()->set_tokens(2e9);
  r.mutable_training()->set_method(v1::TRAINING_METHOD_LORA);
  r.set_view(state.range(1) == 0 ? v1::VIEW_BASIC : v1::VIEW_FULL);
  auto snap = GrownSnapshot(static_cast<int>(state.range(0)));
  // cache:1 as the server runs it: a distinct token count each call, searches remembered.
  core::TrainingLayoutCache layouts;
  core::TrainingLayoutCache* cache = state.range(2) != 0 ? &layouts : nullptr;
  int64_t step = 0;
  for (auto _ : state) {
    if (cache != nullptr) r.mutable_training()->set_tokens(2e9 + static_cast<double>(++step));
    v1::PlanResponse resp;
    benchmark::DoNotOptimize(Plan(*snap, r, &resp, cache));
  }
  state.counters["offers"] = static_cast<double>(snap->instances.size());
}
BENCHMARK(BM_PlanTrainingOffers)->ArgsProduct({{0, 940, 4940}, {0, 1}, {0, 1}})->ArgNames({"extra", "full", "cache"});

// Publishing a new snapshot of the whole shipped catalog, as every admin write does.
void BM_SnapshotReload(benchmark::State& state) {
  char tmpl[] = "/tmp/capplan-bench-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  auto store = store::CatalogStore::Open({dir + "/c.db"});
  for (auto _ : state) {
    benchmark::DoNotOptimize((*store)->Reload());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SnapshotReload);

}  // namespace
}  // namespace capplan::server

// The server's malloc settings (server/allocator.h), so that the figures are the server's.
int main(int argc, char** argv) {
  capplan::server::TuneAllocator();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
