#include "server/tco/tco_exporter.h"

#include <iostream>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "capplan/v1/planner.pb.h"
#include "server/tco/tco_scenario.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

struct SeriesInfo {
  const char* name;
  const char* help;
};

// Indexed by TcoScenarioExporter::Series.
constexpr std::array<SeriesInfo, TcoScenarioExporter::kSeriesCount> kSeries = {{
    {"capplan_tco_scenario_ok", "1 if the TCO scenario priced at the exported catalog version, 0 if it failed."},
    {"capplan_tco_break_even_month",
     "First month in which cumulative own cost <= rent (cash); absent when it never does within the horizon."},
    {"capplan_tco_break_even_never", "1 if owning never catches up with renting within the scenario's horizon."},
    {"capplan_tco_discounted_break_even_month",
     "Break-even month on discounted cash at the scenario's cost of capital; absent when never."},
    {"capplan_tco_own_usd_per_used_gpu_hour", "Amortised cost of owning per used GPU-hour, USD."},
    {"capplan_tco_rent_usd_per_used_gpu_hour", "Cost of renting per used GPU-hour, USD."},
    {"capplan_tco_own_usd_per_million_requests",
     "Owning cost per 1M requests of the scenario's serving workload, USD."},
    {"capplan_tco_rent_usd_per_million_requests",
     "Renting cost per 1M requests of the scenario's serving workload, USD."},
    {"capplan_tco_npv_own_usd", "Net present cost of owning over the horizon, USD."},
    {"capplan_tco_npv_rent_usd", "Net present cost of renting over the horizon, USD."},
    {"capplan_tco_own_levelised_usd_per_gpu_hour",
     "Levelised cost of owning: NPV of costs / present value of the used GPU-hours, USD."},
    {"capplan_tco_rent_levelised_usd_per_gpu_hour",
     "Levelised cost of renting: NPV of costs / present value of the used GPU-hours, USD."},
    {"capplan_tco_break_even_utilization_fraction",
     "Steady use (share of every GPU all month) at which NPV(own) = NPV(rent); absent when rent is flat or "
     "owning never breaks even."},
    {"capplan_tco_break_even_usage_never",
     "1 if no use level makes owning cheaper than renting; absent when rent is flat (use does not matter)."},
    {"capplan_tco_horizon_months", "The scenario's horizon, months."},
    {"capplan_tco_fleet_gpus", "GPUs in the scenario's fleet, all parts together."},
    {"capplan_tco_discount_rate_fraction_per_year", "The scenario's cost of capital, as used."},
    {"capplan_tco_prices_as_of_timestamp_seconds",
     "The instant the scenario's prices were read at (its prices_as_of, else the time of pricing), Unix seconds."},
    {"capplan_tco_stale_prices", "Prices the scenario used that are older than --tco_price_max_age_days."},
}};

// The scenario's inputs as priced: horizon, fleet size, cost of capital, price instant.
void InputValues(const v1::TcoRequest& req, const v1::TcoResponse& r, TcoScenarioExporter::Values* v) {
  (*v)[TcoScenarioExporter::kHorizonMonths] = req.horizon_months();
  double gpus = 0;
  for (const v1::TcoFleet& f : req.fleets()) gpus += f.gpu_count();
  (*v)[TcoScenarioExporter::kFleetGpus] = gpus;
  (*v)[TcoScenarioExporter::kDiscountRateFractionPerYear] = r.discount_rate_fraction_per_year();
  int64_t as_of = absl::ToUnixSeconds(absl::Now());
  if (req.has_prices_as_of_time()) {
    as_of = req.prices_as_of_time().seconds();
  } else if (req.prices_as_of_unix_seconds() != 0) {
    as_of = req.prices_as_of_unix_seconds();
  }
  (*v)[TcoScenarioExporter::kPricesAsOfTimestampSeconds] = static_cast<double>(as_of);
  (*v)[TcoScenarioExporter::kStalePrices] = r.stale_prices_size();
}

TcoScenarioExporter::Values ValuesOf(const v1::TcoRequest& req, const v1::TcoResponse& r) {
  TcoScenarioExporter::Values v;
  v[TcoScenarioExporter::kOk] = 1;
  if (!r.break_even_month_never()) v[TcoScenarioExporter::kBreakEvenMonth] = r.break_even_month();
  v[TcoScenarioExporter::kBreakEvenNever] = r.break_even_month_never() ? 1 : 0;
  if (!r.discounted_break_even_never())
    v[TcoScenarioExporter::kDiscountedBreakEvenMonth] = r.discounted_break_even_month();
  v[TcoScenarioExporter::kOwnUsdPerUsedGpuHour] = r.own_usd_per_used_gpu_hour();
  v[TcoScenarioExporter::kRentUsdPerUsedGpuHour] = r.rent_usd_per_used_gpu_hour();
  if (req.has_serving()) {
    v[TcoScenarioExporter::kOwnUsdPerMillionRequests] = r.own_usd_per_million_requests();
    v[TcoScenarioExporter::kRentUsdPerMillionRequests] = r.rent_usd_per_million_requests();
  }
  v[TcoScenarioExporter::kNpvOwnUsd] = r.npv_own_usd();
  v[TcoScenarioExporter::kNpvRentUsd] = r.npv_rent_usd();
  v[TcoScenarioExporter::kOwnLevelisedUsdPerGpuHour] = r.own_levelised_usd_per_gpu_hour();
  v[TcoScenarioExporter::kRentLevelisedUsdPerGpuHour] = r.rent_levelised_usd_per_gpu_hour();
  if (r.break_even_usage_applies()) {
    v[TcoScenarioExporter::kBreakEvenUsageNever] = r.break_even_usage_never() ? 1 : 0;
    if (!r.break_even_usage_never()) {
      v[TcoScenarioExporter::kBreakEvenUtilizationFraction] = r.break_even_utilization_fraction();
    }
  }
  InputValues(req, r, &v);
  return v;
}

// The gauges of one scenario, or ok=0 alone with the reason in `why`.
TcoScenarioExporter::Values Price(const store::CatalogSnapshot& snap, const store::TcoScenarioRow& row,
                                  std::string* why) {
  absl::StatusOr<v1::TcoRequest> req = TcoScenarioRequest(row);
  absl::Status s = req.status();
  v1::TcoResponse resp;
  if (s.ok()) s = PriceTco(snap, *req, &resp);
  if (s.ok()) return ValuesOf(*req, resp);
  *why = absl::StrCat("TCO scenario \"", row.name, "\" at catalog version ", snap.catalog_version,
                      ": not priced: ", s.ToString());
  TcoScenarioExporter::Values failed;
  failed[TcoScenarioExporter::kOk] = 0;
  return failed;
}

}  // namespace

TcoScenarioExporter::TcoScenarioExporter(prometheus::Registry& registry) {
  for (size_t i = 0; i < kSeries.size(); ++i) {
    families_[i] = &prometheus::BuildGauge().Name(kSeries[i].name).Help(kSeries[i].help).Register(registry);
  }
  catalog_version_ = &prometheus::BuildGauge()
                          .Name("capplan_tco_scenarios_catalog_version")
                          .Help("Catalog version the capplan_tco_* gauges were computed at.")
                          .Register(registry)
                          .Add({});
  scenarios_ = &prometheus::BuildGauge()
                    .Name("capplan_tco_scenarios")
                    .Help("Number of standing TCO scenarios.")
                    .Register(registry)
                    .Add({});
}

std::vector<std::string> TcoScenarioExporter::Export(const store::CatalogSnapshot& snap) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> failures;
  std::set<std::string> current;
  for (const store::TcoScenarioRow& row : snap.tco_scenarios) {
    std::string why;
    const Values values = Price(snap, row, &why);
    if (!why.empty()) failures.push_back(std::move(why));
    current.insert(row.name);
    auto [it, inserted] = exported_.try_emplace(row.name);
    std::array<prometheus::Gauge*, kSeriesCount>& gauges = it->second;
    if (inserted) gauges.fill(nullptr);
    for (size_t i = 0; i < kSeriesCount; ++i) {
      if (values[i].has_value()) {
        if (gauges[i] == nullptr) gauges[i] = &families_[i]->Add({{"scenario", row.name}});
        gauges[i]->Set(*values[i]);
      } else if (gauges[i] != nullptr) {
        families_[i]->Remove(gauges[i]);
        gauges[i] = nullptr;
      }
    }
  }
  for (auto it = exported_.begin(); it != exported_.end();) {
    if (current.count(it->first) != 0) {
      ++it;
      continue;
    }
    for (size_t i = 0; i < kSeriesCount; ++i) {
      if (it->second[i] != nullptr) families_[i]->Remove(it->second[i]);
    }
    it = exported_.erase(it);
  }
  catalog_version_->Set(static_cast<double>(snap.catalog_version));
  scenarios_->Set(static_cast<double>(snap.tco_scenarios.size()));
  return failures;
}

TcoScenarioWorker::TcoScenarioWorker(store::CatalogStore* store, TcoScenarioExporter* exporter)
    : store_(store), exporter_(exporter) {
  listener_ = store_->AddPublishListener([this](int64_t version) {
    absl::MutexLock lock(&mu_);
    if (version > published_) published_ = version;
  });
  thread_ = std::thread([this] { Run(); });
}

TcoScenarioWorker::~TcoScenarioWorker() {
  store_->RemovePublishListener(listener_);
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  thread_.join();
}

void TcoScenarioWorker::Run() {
  bool first = true;
  int64_t seen = 0;  // the newest announcement acted on
  int64_t exported = -1;
  for (;;) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stop_ || first || published_ > seen; };
      mu_.Await(absl::Condition(&ready));
      if (stop_) return;
      first = false;
      seen = published_;
    }
    // The newest snapshot, whatever woke us: versions published meanwhile are skipped.
    const std::shared_ptr<const store::CatalogSnapshot> snap = store_->Snapshot();
    if (snap->catalog_version == exported) continue;
    for (const std::string& line : exporter_->Export(*snap)) std::cerr << "capplan-server: " << line << "\n";
    exported = snap->catalog_version;
  }
}

}  // namespace capplan::server
