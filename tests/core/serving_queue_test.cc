// Queueing math against closed-form results from the textbooks (Kleinrock, Queueing Systems
// Vol. 1, 1975; Gross & Harris, Fundamentals of Queueing Theory, 3rd ed. 1998) and the
// M/D/1 prefill model of DistServe (Zhong et al., OSDI 2024, Sec. 3.1).
#include "core/serving/serving_queue.h"

#include <gtest/gtest.h>

#include <cmath>

namespace capplan::core {
namespace {

// Erlang C straight from its definition (Kleinrock eq. 3.40), summed in log space: an
// independent evaluation for the recursion in ErlangC.
double ErlangCByDefinition(int c, double a) {
  // Terms scaled by the largest, a^k / k! peaking at k = a.
  auto log_term = [&](int k) { return k * std::log(a) - std::lgamma(k + 1.0); };
  const double peak = log_term(static_cast<int>(a));
  double sum = 0;
  for (int k = 0; k < c; ++k) sum += std::exp(log_term(k) - peak);
  const double top = std::exp(log_term(c) - peak) * c / (c - a);
  return top / (sum + top);
}

TEST(ErlangCTest, SmallSystemsMatchTheHandWorkedFormula) {
  // M/M/1: the probability of waiting is the utilisation (Kleinrock Sec. 3.2).
  EXPECT_DOUBLE_EQ(ErlangC(1, 0.8), 0.8);
  // c = 2, a = 1: (1/2 x 2) / (1 + 1 + 1) = 1/3 (Gross & Harris eq. 2.36).
  EXPECT_NEAR(ErlangC(2, 1.0), 1.0 / 3.0, 1e-12);
  // c = 3, a = 2: (8/6 x 3) / (1 + 2 + 2 + 4) = 4/9.
  EXPECT_NEAR(ErlangC(3, 2.0), 4.0 / 9.0, 1e-12);
  EXPECT_DOUBLE_EQ(ErlangC(4, 4.0), 1.0);  // saturated: everyone waits
  EXPECT_DOUBLE_EQ(ErlangC(4, 0.0), 0.0);
}

TEST(ErlangCTest, LargeBatchesAgreeWithTheDefinition) {
  // Batch sizes a serving replica runs (vLLM's default max_num_seqs is 256).
  for (int c : {16, 64, 256, 1024}) {
    for (double rho : {0.5, 0.8, 0.95, 0.99}) {
      const double a = rho * c;
      EXPECT_NEAR(ErlangC(c, a), ErlangCByDefinition(c, a), 1e-9 + 1e-9 * ErlangCByDefinition(c, a))
          << "c=" << c << " rho=" << rho;
    }
  }
}

TEST(MgcWaitTest, MM1MeanWaitIsRhoOverMuMinusLambda) {
  // M/M/1 with lambda = 0.8/s, mu = 1/s: Wq = rho / (mu - lambda) = 0.8 / 0.2 = 4 s
  // (Kleinrock eq. 3.27); exponential service has cs^2 = 1.
  const QueueWait w = MgcWait(0.8, 1.0, 1, 1.0);
  EXPECT_NEAR(w.mean_seconds, 4.0, 1e-12);
  EXPECT_NEAR(w.probability, 0.8, 1e-12);
  // P(W > t) = rho e^{-(mu - lambda) t} (Kleinrock eq. 3.28): p99 = ln(0.8 / 0.01) / 0.2 s.
  EXPECT_NEAR(w.Quantile(0.99), std::log(80.0) / 0.2, 1e-9);
  // Half the arrivals find the server idle-or-short: p50 = ln(0.8 / 0.5) / 0.2 s.
  EXPECT_NEAR(w.Quantile(0.5), std::log(1.6) / 0.2, 1e-9);
}

TEST(MgcWaitTest, MD1IsPollaczekKhinchine) {
  // M/D/1: Wq = rho D / (2 (1 - rho)) (Gross & Harris eq. 5.11 with cs^2 = 0); DistServe's
  // prefill instance (Sec. 3.1): average TTFT = D + lambda D^2 / (2 (1 - lambda D)).
  const double lambda = 6, d = 0.1;  // rho = 0.6
  const QueueWait w = MgcWait(lambda, d, 1, 0.0);
  EXPECT_NEAR(w.mean_seconds, 0.6 * 0.1 / (2 * 0.4), 1e-12);
  EXPECT_NEAR(d + w.mean_seconds, d + lambda * d * d / (2 * (1 - lambda * d)), 1e-12);
}

TEST(MgcWaitTest, MMcWaitAndTailAreErlangCOverCMuMinusLambda) {
  // M/M/3 with a = 2 Erlangs (mu = 1): Wq = C / (c mu - lambda) = (4/9) / 1 s, and
  // P(W > t) = C e^{-(c mu - lambda) t} (Kleinrock eqs. 3.40-3.41).
  const QueueWait w = MgcWait(2.0, 1.0, 3, 1.0);
  EXPECT_NEAR(w.mean_seconds, 4.0 / 9.0, 1e-12);
  EXPECT_NEAR(w.Quantile(0.99), std::log((4.0 / 9.0) / 0.01), 1e-9);
  EXPECT_EQ(w.Quantile(0.5), 0.0);  // 56% of arrivals find a free server
}

TEST(MgcWaitTest, OverloadSaturates) {
  const QueueWait w = MgcWait(11, 0.1, 1, 0.0);
  EXPECT_TRUE(w.saturated);
  EXPECT_TRUE(std::isinf(w.Quantile(0.5)));
}

// A replica whose prefill dominates: 1 s of batched prefill per request, slots never bind.
ReplicaService PrefillBound() {
  ReplicaService s;
  s.ttft_seconds = 1.0;
  s.tpot_seconds = 0.02;
  s.output_tokens = 101;
  s.batch = 0;  // no slot stage: the M/D/1 prefill queue alone
  s.capacity_per_second = 1.0;
  s.prefill_busy_seconds = 1.0;
  return s;
}

TEST(LatencyAtTest, PercentilesAddTheWaitToTheServiceTimes) {
  const ReplicaService s = PrefillBound();
  const LatencyAtLoad l = LatencyAt(s, 0.7);
  // M/D/1 at rho 0.7: P(wait) = 0.7, conditional mean D / (2 (1 - rho)) = 1/0.6 s.
  const double tail = 1.0 / 0.6;
  EXPECT_NEAR(l.ttft_p99_seconds, 1.0 + tail * std::log(0.7 / 0.01), 1e-9);
  EXPECT_NEAR(l.ttft_p50_seconds, 1.0 + tail * std::log(0.7 / 0.5), 1e-9);
  EXPECT_NEAR(l.e2e_p99_seconds - l.ttft_p99_seconds, 100 * 0.02, 1e-12);
  EXPECT_NEAR(l.wait_mean_seconds, 0.7 * 1.0 / (2 * 0.3), 1e-12);
  // At 70% planned use the first token waits: p99 TTFT is ~8x the unqueued one.
  EXPECT_GT(l.ttft_p99_seconds, 7 * s.ttft_seconds);
}

TEST(SloBreakLoadTest, BreakLoadIsWhereP99MeetsTheSlo) {
  const ReplicaService s = PrefillBound();
  const double slo = 3.0;
  const double lb = SloBreakLoad(s, slo, 0);
  ASSERT_GT(lb, 0);
  ASSERT_LT(lb, s.capacity_per_second);
  EXPECT_LE(LatencyAt(s, lb).ttft_p99_seconds, slo);
  EXPECT_GT(LatencyAt(s, lb * 1.01).ttft_p99_seconds, slo);
  // A TTFT SLO under the unqueued TTFT cannot be met at any load.
  EXPECT_EQ(SloBreakLoad(s, 0.5, 0), 0.0);
  // No latency SLO: the replica may run to capacity.
  EXPECT_EQ(SloBreakLoad(s, 0, 0), s.capacity_per_second);
  // The e2e SLO binds the same way: 2 s of decode on top of TTFT.
  const double le = SloBreakLoad(s, 0, slo + 2.0);
  EXPECT_NEAR(le, lb, 1e-3 * lb);
}

TEST(ReplicasForLoadTest, TightSloAddsReplicasBeyondTheUtilisationRule) {
  // 10 req/s on replicas of capacity 1 at 70%: 15 replicas by utilisation alone.
  EXPECT_EQ(ReplicasForLoad(10, 1, 0.7, 1), 15);
  // A p99 SLO that breaks at 0.4 req/s per replica needs 25.
  EXPECT_EQ(ReplicasForLoad(10, 1, 0.7, 0.4), 25);
  EXPECT_EQ(ReplicasForLoad(10, 1, 0.7, 0), 0);  // no count meets it
}

// At 100% planned use (target_utilization_fraction allows 1.0) a load that is an exact
// multiple of capacity would leave every replica saturated, its p99 infinite: one more.
TEST(ReplicasForLoadTest, NoReplicaIsPlannedAtFullCapacity) {
  EXPECT_EQ(ReplicasForLoad(10, 1, 1.0, 1), 11);
  EXPECT_EQ(ReplicasForLoad(10, 2.5, 1.0, 2.5), 5);
  const int64_t n = ReplicasForLoad(35, 35.0 / 3.0, 1.0, 35.0 / 3.0);
  ReplicaService s;
  s.ttft_seconds = 0.05;
  s.tpot_seconds = 0.01;
  s.output_tokens = 100;
  s.batch = 8;
  s.capacity_per_second = 35.0 / 3.0;
  s.prefill_busy_seconds = 0.02;
  const LatencyAtLoad l = LatencyAt(s, 35 / static_cast<double>(n));
  EXPECT_FALSE(l.saturated) << n;
  EXPECT_TRUE(std::isfinite(l.ttft_p99_seconds));
}

}  // namespace
}  // namespace capplan::core
