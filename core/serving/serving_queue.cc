// Queueing at the offered load. See serving_queue.h for the model and its sources.
#include "core/serving/serving_queue.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capplan::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Bisection steps for the SLO break load: capacity / 2^12, finer than the three
// significant figures an answer shows.
constexpr int kBreakSearchSteps = 12;
// With the slots' Erlang C, O(batch) a step: bound / 2^8, within 0.4%.
constexpr int kSlotBreakSearchSteps = 8;

}  // namespace

double ErlangC(int64_t servers, double erlangs) {
  if (servers < 1 || !(erlangs > 0)) return 0;
  const double c = static_cast<double>(servers);
  if (erlangs >= c) return 1;
  const double rho = erlangs / c;
  // Erlang B = t_c / sum_{k<=c} t_k with t_k = a^k / k! (Kleinrock eq. 3.43), summed from k = c
  // down by the ratios t_{k-1} / t_k = k / a: the terms rise to the peak at k ~ a and then
  // fall, so the sum stops some 8.5 standard deviations (sqrt a) below the peak. Far from
  // saturation the sum grows fast and C = B / (1 - rho (1 - B)) is below 1e-12 within a few
  // terms: zero for every percentile and mean that shows.
  const double inv_a = 1.0 / erlangs;
  double term = 1, sum = 1;
  for (int64_t k = servers; k >= 1; --k) {
    term *= static_cast<double>(k) * inv_a;
    sum += term;
    if (sum * (1.0 - rho) > 1e12) break;
    if (static_cast<double>(k) <= erlangs && term < sum * 1e-17) break;
  }
  const double erlang_b = 1.0 / sum;
  return erlang_b / (1.0 - rho * (1.0 - erlang_b));
}

double QueueWait::Quantile(double q) const {
  if (saturated) return kInf;
  const double miss = 1.0 - q;
  if (probability <= miss || tail_seconds <= 0) return 0;
  return tail_seconds * std::log(probability / miss);
}

QueueWait MgcWait(double arrival_per_second, double service_seconds, int64_t servers, double service_scv) {
  QueueWait w;
  if (!(arrival_per_second > 0) || !(service_seconds > 0) || servers < 1) return w;
  const double c = static_cast<double>(servers);
  const double erlangs = arrival_per_second * service_seconds;
  const double rho = erlangs / c;
  if (rho >= 1) {
    w.probability = 1;
    w.mean_seconds = w.tail_seconds = kInf;
    w.saturated = true;
    return w;
  }
  const double variability = (1.0 + service_scv) / 2.0;  // (ca^2 + cs^2) / 2, Poisson arrivals
  w.probability = ErlangC(servers, erlangs);
  w.tail_seconds = variability * service_seconds / (c * (1.0 - rho));
  w.mean_seconds = w.probability * w.tail_seconds;
  return w;
}

LatencyAtLoad LatencyAt(const ReplicaService& s, double load_per_second) {
  LatencyAtLoad out;
  out.load_per_second = load_per_second;
  const double decode_seconds = static_cast<double>(std::max<int64_t>(0, s.output_tokens - 1)) * s.tpot_seconds;
  QueueWait slot;
  if (s.batch > 0 && s.capacity_per_second > 0) {
    // Each slot is held batch / capacity seconds per request, so the slots' utilisation is
    // load / capacity: the utilisation the replica count is planned at.
    slot = MgcWait(load_per_second, static_cast<double>(s.batch) / s.capacity_per_second, s.batch, 0.0);
  }
  const QueueWait prefill = MgcWait(load_per_second, s.prefill_busy_seconds, 1, 0.0);
  out.saturated = slot.saturated || prefill.saturated;
  out.wait_mean_seconds = slot.mean_seconds + prefill.mean_seconds;
  out.ttft_p50_seconds = s.ttft_seconds + slot.Quantile(0.5) + prefill.Quantile(0.5);
  out.ttft_p99_seconds = s.ttft_seconds + slot.Quantile(0.99) + prefill.Quantile(0.99);
  out.e2e_p50_seconds = out.ttft_p50_seconds + decode_seconds;
  out.e2e_p99_seconds = out.ttft_p99_seconds + decode_seconds;
  return out;
}

double SloBreakLoad(const ReplicaService& s, double ttft_slo_seconds, double e2e_slo_seconds) {
  if (!(s.capacity_per_second > 0)) return 0;
  if (ttft_slo_seconds <= 0 && e2e_slo_seconds <= 0) return s.capacity_per_second;
  auto meets_with = [&](const ReplicaService& r, double load) {
    const LatencyAtLoad l = LatencyAt(r, load);
    if (l.saturated) return false;
    return (ttft_slo_seconds <= 0 || l.ttft_p99_seconds <= ttft_slo_seconds) &&
           (e2e_slo_seconds <= 0 || l.e2e_p99_seconds <= e2e_slo_seconds);
  };
  auto largest = [&](const ReplicaService& r, double hi, int steps) {
    if (!meets_with(r, hi * 1e-9)) return 0.0;
    double lo = 0;
    for (int i = 0; i < steps; ++i) {
      const double mid = 0.5 * (lo + hi);
      (meets_with(r, mid) ? lo : hi) = mid;
    }
    return lo;
  };
  // The prefill queue alone costs O(1) a load; the slots' Erlang C costs O(batch). Waiting
  // for a slot only adds, so the prefill-only break bounds the answer; and while fewer than
  // 1% of arrivals find every slot busy the slots add nothing to p50 or p99, so that bound
  // is the answer unless the slots are that busy at it.
  ReplicaService prefill_only = s;
  prefill_only.batch = 0;
  const double bound = largest(prefill_only, s.capacity_per_second, kBreakSearchSteps);
  if (s.batch <= 0 || bound <= 0) return bound;
  const double slot_erlangs = bound * static_cast<double>(s.batch) / s.capacity_per_second;
  if (ErlangC(s.batch, slot_erlangs) <= 0.01) return bound;
  return largest(s, bound, kSlotBreakSearchSteps);
}

int64_t ReplicasForLoad(double offered_per_second, double capacity_per_second, double target_utilization,
                        double slo_break_per_second) {
  if (!(capacity_per_second > 0) || !(slo_break_per_second > 0) || !(target_utilization > 0)) return 0;
  const double by_use = std::ceil(offered_per_second / (capacity_per_second * target_utilization) - 1e-9);
  const double by_slo = std::ceil(offered_per_second / slo_break_per_second - 1e-9);
  double n = std::max({1.0, by_use, by_slo});
  // A replica loaded to its full capacity (target_utilization 1, or a load within rounding of
  // a multiple of capacity) has a queue that grows without bound: one more.
  if (offered_per_second / n >= capacity_per_second * (1.0 - 1e-9)) n += 1;
  // Callers bound the load (<= 1e7 req/s); a break load this small means no count works.
  if (n > 1e9) return 0;
  return static_cast<int64_t>(n);
}

}  // namespace capplan::core
