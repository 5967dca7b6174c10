// Speed of the core estimators (Google Benchmark). A tool, not a test: `make bench`.
// items_per_second = parallel configurations (or serving batch sizes) evaluated per second.
#include <benchmark/benchmark.h>

#include "core/serving/serving.h"
#include "core/serving/serving_disagg.h"
#include "core/serving/serving_queue.h"
#include "core/training/training.h"
#include "fixtures.h"

namespace capplan::core {
namespace {

void BM_TrainingSearch(benchmark::State& state) {
  TrainingJob job;
  job.model = testing::Llama2_70B();
  job.tokens = 2e12;
  ClusterSpec cluster{testing::A100_80GB()};
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  SearchOptions options;
  options.max_gpus = static_cast<int>(state.range(0));
  int64_t evaluated = 0;
  for (auto _ : state) {
    absl::StatusOr<SearchResult> r = SearchParallelism(job, cluster, eff, options);
    evaluated += r->configurations_evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(evaluated);
  state.counters["configs_per_search"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TrainingSearch)->Arg(8)->Arg(64)->Arg(1024);

// One estimate of one layout (Llama-2-70B, 64 A100s, tp 8 x pp 4 x dp 2, ZeRO-1): what the
// estimator costs per call outside any search, validation included.
void BM_EstimateTraining(benchmark::State& state) {
  TrainingJob job;
  job.model = testing::Llama2_70B();
  job.tokens = 2e12;
  ClusterSpec cluster{testing::A100_80GB()};
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  ParallelConfig par;
  par.tp = 8;
  par.pp = 4;
  par.dp = 2;
  par.zero_stage = 1;
  for (auto _ : state) {
    absl::StatusOr<TrainingEstimate> e = EstimateTraining(job, cluster, par, eff);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateTraining);

// Cluster scale: Llama 3.1 405B (config.json) on exactly 16,384 H100 over 400 Gbit/s per GPU
// (Dubey et al. 2024), the global batch searched: every tp x cp x pp x dp x vpp split.
void BM_TrainingSearchAtScale(benchmark::State& state) {
  TrainingJob job;
  job.model = testing::Dense("Llama-3.1-405B", 126, 16384, 128, 8, 53248, 128256);
  job.tokens = 15.6e12;
  job.sequence_length = 8192;
  job.global_batch_tokens = 0;
  const ClusterSpec cluster{testing::H100_SXM(), {8, Interconnect::kNvlink, 450e9, NetworkKind::kRoce, 50e9, 10e-6}};
  const Efficiency eff = DefaultTrainingEfficiency(cluster.gpu, job.precision);
  SearchOptions options;
  options.max_gpus = options.min_gpus = 16384;
  int64_t evaluated = 0;
  for (auto _ : state) {
    absl::StatusOr<SearchResult> r = SearchParallelism(job, cluster, eff, options);
    evaluated += r->configurations_evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(evaluated);
  state.counters["configs_per_search"] = static_cast<double>(evaluated) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_TrainingSearchAtScale)->Unit(benchmark::kMillisecond);

// One search per GPU type of a 16-part catalog at a fixed GPU count, as a Plan over the whole
// catalog does for one instance size.
void BM_TrainingCatalogSweep(benchmark::State& state) {
  TrainingJob job;
  job.model = testing::Llama2_7B();
  job.tokens = 1e11;
  std::vector<ClusterSpec> clusters;
  for (int i = 0; i < 2; ++i) {
    for (const GpuSpec& g : {testing::A100_80GB(), testing::A100_40GB(), testing::H100_SXM(), testing::H200(),
                             testing::RtxA6000(), testing::Rtx4090(), testing::Rtx3090(), testing::V100()}) {
      clusters.push_back({g});
    }
  }
  SearchOptions options;
  options.max_gpus = 8;
  options.min_gpus = 8;
  int64_t evaluated = 0;
  for (auto _ : state) {
    for (const ClusterSpec& c : clusters) {
      absl::StatusOr<SearchResult> r =
          SearchParallelism(job, c, DefaultTrainingEfficiency(c.gpu, job.precision), options);
      if (r.ok()) evaluated += r->configurations_evaluated;
      benchmark::DoNotOptimize(r);
    }
  }
  state.SetItemsProcessed(evaluated);
}
BENCHMARK(BM_TrainingCatalogSweep);

// Llama-2-70B (config.json) at 50 req/s with chat-sized requests and SLOs.
ServingWorkload Llama70BChat() {
  ServingWorkload w;
  w.model = testing::Llama2_70B();
  w.prompt_tokens = 512;
  w.output_tokens = 256;
  w.requests_per_second = 50;
  w.tpot_slo_seconds = 0.05;
  w.ttft_slo_seconds = 1.0;
  return w;
}

// Serving: every tensor-parallel layout for one GPU type, each with its SLO batch search.
void BM_ServingSearch(benchmark::State& state) {
  const ServingWorkload w = Llama70BChat();
  const GpuSpec gpu = testing::H100_SXM();
  const ServingEfficiency eff = DefaultServingEfficiency(gpu);
  for (auto _ : state) {
    std::vector<ServingOption> r = SearchServing(w, gpu, eff);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ServingSearch);

// What a serving Plan adds per GPU type on top of BM_ServingSearch: each layout's p99 replica
// sizing under queueing (the SLO break load's bisection, Erlang C over the batch), and the
// disaggregated stages and pairings on one fabric (an HGX node: NVLink 450 GB/s per GPU, 400
// Gbit/s InfiniBand per GPU).
void BM_ServingQueueAndDisaggregation(benchmark::State& state) {
  const ServingWorkload w = Llama70BChat();
  const GpuSpec gpu = testing::H100_SXM();
  const ServingEfficiency eff = DefaultServingEfficiency(gpu);
  const Fabric fabric{8, Interconnect::kNvlink, 450e9, NetworkKind::kInfiniband, 50e9, 10e-6};
  const std::vector<ServingOption> options = SearchServing(w, gpu, eff);
  for (auto _ : state) {
    for (const ServingOption& o : options) {
      if (!o.estimate.ok()) continue;
      absl::StatusOr<PrefillEstimate> p = EstimatePrefill(w, gpu, o.tp, w.prompt_tokens, eff);
      ReplicaService s{o.estimate->ttft_seconds,
                       o.estimate->tpot_seconds,
                       w.output_tokens,
                       o.estimate->batch,
                       o.estimate->requests_per_second_per_replica,
                       p.ok() ? PrefillBusySeconds(*p) : 0};
      const double brk = SloBreakLoad(s, w.ttft_slo_seconds, w.e2e_slo_seconds);
      const int64_t n = ReplicasForLoad(w.requests_per_second, s.capacity_per_second, w.target_utilization, brk);
      benchmark::DoNotOptimize(LatencyAt(s, w.requests_per_second / static_cast<double>(std::max<int64_t>(1, n))));
    }
    absl::StatusOr<std::vector<DisaggregatedServing>> d =
        SearchDisaggregated(w, fabric, DisaggregatedStages(w, gpu, eff));
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ServingQueueAndDisaggregation);

// One serving estimate at a fixed batch outside any search (Llama-2-70B chat on H100s, tp 4,
// 64 in flight): validation, the decode step, the prefill and the latencies, as a caller of
// EstimateServingAtBatch pays per call.
void BM_EstimateServing(benchmark::State& state) {
  const ServingWorkload w = Llama70BChat();
  const GpuSpec gpu = testing::H100_SXM();
  const ServingEfficiency eff = DefaultServingEfficiency(gpu);
  for (auto _ : state) {
    absl::StatusOr<ServingEstimate> e = EstimateServingAtBatch(w, gpu, 4, 64, eff);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateServing);

// The same search for a static batch arriving at once: each batch's mean first-token time.
void BM_ServingSearchBurst(benchmark::State& state) {
  ServingWorkload w;
  w.model = testing::Llama2_70B();
  w.prompt_tokens = 512;
  w.output_tokens = 256;
  w.requests_per_second = 50;
  w.tpot_slo_seconds = 0.05;
  w.batch_arrives_at_once = true;
  const GpuSpec gpu = testing::H100_SXM();
  const ServingEfficiency eff = DefaultServingEfficiency(w, gpu);
  for (auto _ : state) {
    std::vector<ServingOption> r = SearchServing(w, gpu, eff);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ServingSearchBurst);

}  // namespace
}  // namespace capplan::core

BENCHMARK_MAIN();
