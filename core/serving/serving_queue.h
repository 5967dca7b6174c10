// Queueing at the offered load: how long a request waits before its prefill starts, and the
// p50/p99 time to first token and end-to-end latency that waiting gives, for a replica that
// serves by continuous batching. Pure math, no I/O.
//
// The replica is two queues in tandem, each an M/G/c queue with Poisson arrivals:
//   - the batch slots: c = the replica's batch, each slot held for the request's whole
//     residence (batch / capacity seconds, so slot utilisation = load / capacity), service
//     lengths near-deterministic (fixed prompt and output lengths, cs^2 = 0);
//   - the prefill engine: one server whose service is the request's share of batched
//     prefill compute; an M/D/1 queue, as DistServe (Zhong et al., OSDI 2024, Sec. 3.1)
//     models a prefill instance.
// Mean waits: Erlang C for M/M/c (Kleinrock, Queueing Systems Vol. 1, 1975, eq. 3.40) with
// the Allen-Cunneen correction (ca^2 + cs^2)/2 for M/G/c (Allen, Probability, Statistics
// and Queueing Theory, 2nd ed. 1990, Sec. 6.4); for c = 1 this is Kingman's G/G/1 formula
// and exact for M/D/1 (Pollaczek-Khinchine). Percentiles: the wait is 0 with probability
// 1 - P(wait) and otherwise exponential with mean Wq / P(wait), exact for M/M/c
// (Kleinrock eq. 3.41 gives P(W > t) = C e^{-(c mu - lambda) t}) and the usual heavy-traffic
// tail approximation otherwise. The two waits' quantiles are added: a conservative bound.
#pragma once

#include <cstdint>

namespace capplan::core {

// Erlang C: the probability an arrival waits in an M/M/c queue with `servers` servers and
// offered load `erlangs` = lambda / mu (< servers). 1 when erlangs >= servers.
double ErlangC(int64_t servers, double erlangs);

struct QueueWait {
  double probability = 0;   // P(wait > 0)
  double mean_seconds = 0;  // E[wait]
  double tail_seconds = 0;  // mean of the wait given that it waits
  bool saturated = false;   // utilisation >= 1: the queue grows without bound

  // The q-quantile of the wait (q in (0, 1)); +inf when saturated.
  double Quantile(double q) const;
};

// M/G/c by Allen-Cunneen: `arrival_per_second` Poisson (ca^2 = 1), `servers` servers each
// busy `service_seconds` per request with squared coefficient of variation `service_scv`.
QueueWait MgcWait(double arrival_per_second, double service_seconds, int64_t servers, double service_scv);

// What one replica serving by continuous batching does per request, without queueing.
struct ReplicaService {
  double ttft_seconds = 0;  // prefill (and whatever precedes the first token)
  double tpot_seconds = 0;  // per output token at the planned batch
  int64_t output_tokens = 1;
  int64_t batch = 1;                // slots
  double capacity_per_second = 0;   // requests/s at full batch
  double prefill_busy_seconds = 0;  // the prefill engine's time per request (batched share)
};

struct LatencyAtLoad {
  double load_per_second = 0;  // per replica
  double ttft_p50_seconds = 0, ttft_p99_seconds = 0;
  double e2e_p50_seconds = 0, e2e_p99_seconds = 0;
  double wait_mean_seconds = 0;  // slot wait + prefill wait, means
  bool saturated = false;
};

// p50 and p99 TTFT and end-to-end latency for one replica at `load_per_second`.
LatencyAtLoad LatencyAt(const ReplicaService& s, double load_per_second);

// The largest load per replica (requests/s, below capacity) at which p99 TTFT stays within
// `ttft_slo_seconds` and p99 end to end within `e2e_slo_seconds` (0: no target). 0 when even
// a vanishing load misses; capacity when neither SLO is set.
double SloBreakLoad(const ReplicaService& s, double ttft_slo_seconds, double e2e_slo_seconds);

// Replicas for `offered_per_second`: the utilisation rule ceil(load / (capacity x
// target_utilization)), raised until the per-replica load is within the SLO break load and
// below capacity (a fully loaded replica's queue grows without bound). 0 when no count meets
// the SLO (break load 0).
int64_t ReplicasForLoad(double offered_per_second, double capacity_per_second, double target_utilization,
                        double slo_break_per_second);

}  // namespace capplan::core
