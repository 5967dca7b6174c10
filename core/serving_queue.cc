// Queueing at the offered load. See serving_queue.h for the model and its sources.
#include "core/serving_queue.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace capplan::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Bisection steps for the SLO break load: capacity / 2^16 is finer than any load a caller
// states to three significant figures.
constexpr int kBreakSearchSteps = 16;

}  // namespace

double ErlangC(int64_t servers, double erlangs) {
  if (servers < 1 || !(erlangs > 0)) return 0;
  const double c = static_cast<double>(servers);
  if (erlangs >= c) return 1;
  const double rho = erlangs / c;
  // 1/B by the Erlang B recursion 1/B(k) = 1 + (k/a) / B(k-1) (Jagerman 1974), one
  // multiply-add per server and no overflow until C is far below anything that shows.
  const double inv_a = 1.0 / erlangs;
  double inv_b = 1;
  for (int64_t k = 1; k <= servers; ++k) {
    inv_b = 1.0 + static_cast<double>(k) * inv_a * inv_b;
    // Past k = a the recursion only grows: C < 1e-15 from here on, zero for every purpose.
    if (inv_b * (1.0 - rho) > 1e15) return 1.0 / (inv_b * (1.0 - rho) + rho);
  }
  // C = B / (1 - rho (1 - B)) with B = 1 / inv_b.
  return 1.0 / (inv_b * (1.0 - rho) + rho);
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
  auto meets = [&](double load) {
    const LatencyAtLoad l = LatencyAt(s, load);
    if (l.saturated) return false;
    return (ttft_slo_seconds <= 0 || l.ttft_p99_seconds <= ttft_slo_seconds) &&
           (e2e_slo_seconds <= 0 || l.e2e_p99_seconds <= e2e_slo_seconds);
  };
  double lo = 0;
  double hi = s.capacity_per_second;
  if (!meets(hi * 1e-9)) return 0;
  for (int i = 0; i < kBreakSearchSteps; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (meets(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

int64_t ReplicasForLoad(double offered_per_second, double capacity_per_second, double target_utilization,
                        double slo_break_per_second) {
  if (!(capacity_per_second > 0) || !(slo_break_per_second > 0) || !(target_utilization > 0)) return 0;
  const double by_use = std::ceil(offered_per_second / (capacity_per_second * target_utilization) - 1e-9);
  const double by_slo = std::ceil(offered_per_second / slo_break_per_second - 1e-9);
  const double n = std::max({1.0, by_use, by_slo});
  // Callers bound the load (<= 1e7 req/s); a break load this small means no count works.
  if (n > 1e9) return 0;
  return static_cast<int64_t>(n);
}

}  // namespace capplan::core
