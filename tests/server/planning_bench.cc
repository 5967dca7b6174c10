// In-process cost of Plan/Compare/Tco over the shipped catalog (Google Benchmark): the server
// time a scheduler's call spends outside gRPC. `build/tests/server/capplan_planning_bench`.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>

#include "server/planning.h"
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

BENCHMARK_MAIN();
