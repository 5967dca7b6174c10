// Plan, Compare and Tco: each converts the request to core's types (request_proto), runs the
// planner (core/planner, core/tco) and converts the answer back (option_proto).
#include "server/planning/planning.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/planner/compare.h"
#include "core/planner/serving_plan.h"
#include "core/planner/training_plan.h"
#include "core/serving/serving.h"
#include "core/tco/tco.h"
#include "server/api/option_proto.h"
#include "server/api/request_proto.h"
#include "server/api/tco_request.h"
#include "server/api/tco_response.h"
#include "server/api/time_fields.h"

namespace capplan::server {

namespace v1 = capplan::v1;
namespace planner = core::planner;

namespace {

void AddFormulas(const std::vector<std::string>& formulas, google::protobuf::RepeatedPtrField<std::string>* out) {
  for (const std::string& f : formulas) *out->Add() = f;
}

absl::Status PlanTraining(const core::CatalogView& catalog, const v1::PlanRequest& req, const planner::PlanQuery& q,
                          core::TrainingLayoutCache* layouts, v1::PlanResponse* resp) {
  absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(catalog, req.training(), "training");
  if (!job.ok()) return job.status();
  absl::StatusOr<planner::TrainingPlan> plan = planner::PlanTraining(catalog, *job, q, {layouts, catalog.Version()});
  if (!plan.ok()) return plan.status();
  for (const planner::TrainingChoice& c : plan->options) {
    v1::PlanOption* o = resp->add_options();
    o->set_rank(resp->options_size());
    FillTrainingOption(catalog.Version(), plan->supplies[c.supply], c, o);
  }
  RejectionsToProto(plan->rejected, resp);
  FrontierToProto(plan->frontier, true, resp);
  resp->set_selection_rule(plan->selection_rule);
  if (req.view() != v1::VIEW_BASIC) AddFormulas(TrainingFormulas(), resp->mutable_formulas());
  return absl::OkStatus();
}

absl::Status PlanServing(const core::CatalogView& catalog, const v1::PlanRequest& req, const planner::PlanQuery& q,
                         core::TrainingLayoutCache* cache, v1::PlanResponse* resp) {
  absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(catalog, req.serving(), "serving");
  if (!w.ok()) return w.status();
  absl::StatusOr<planner::ServingPlan> plan = planner::PlanServing(catalog, *w, q, {cache, catalog.Version()});
  if (!plan.ok()) return plan.status();
  for (const planner::ServingChoice& c : plan->options) {
    v1::PlanOption* o = resp->add_options();
    o->set_rank(resp->options_size());
    FillServingOption(catalog.Version(), plan->supplies[c.supply], c, *w, o);
  }
  RejectionsToProto(plan->rejected, resp);
  FrontierToProto(plan->frontier, false, resp);
  resp->set_selection_rule(plan->selection_rule);
  if (req.view() != v1::VIEW_BASIC) AddFormulas(ServingFormulas(), resp->mutable_formulas());
  return absl::OkStatus();
}

// The requests and output tokens the serving parts can carry at the workload's SLOs.
double ServingCapacity(const core::CatalogView& catalog, const core::ServingWorkload& w, const core::GpuRow& gpu,
                       int count) {
  double best = 0;
  for (const core::ServingOption& o :
       core::SearchServing(w, gpu.spec, core::ServingEfficiencyFor(w, gpu.spec, catalog.ServingBenchmarks()))) {
    if (!o.estimate.ok() || o.tp > count) continue;
    const double replicas = std::floor(static_cast<double>(count) / o.tp);  // whole replicas only
    best = std::max(best, o.estimate->requests_per_second_per_replica * replicas * w.target_utilization);
  }
  return best;
}

}  // namespace

absl::Status Plan(const core::CatalogView& catalog, const v1::PlanRequest& req, v1::PlanResponse* resp,
                  core::TrainingLayoutCache* layouts) {
  absl::StatusOr<planner::PlanQuery> q = PlanQueryFrom(catalog, req);
  if (!q.ok()) return q.status();
  resp->set_catalog_version(catalog.Version());
  switch (req.workload_case()) {
    case v1::PlanRequest::kTraining:
      return PlanTraining(catalog, req, *q, layouts, resp);
    case v1::PlanRequest::kServing:
      return PlanServing(catalog, req, *q, layouts, resp);
    case v1::PlanRequest::WORKLOAD_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("workload: set training or serving");
}

absl::Status Compare(const core::CatalogView& catalog, const v1::CompareRequest& req, v1::CompareResponse* resp,
                     core::TrainingLayoutCache* layouts) {
  absl::StatusOr<int64_t> resolved =
      PricesAsOfFrom(req.prices_as_of_unix_seconds(), req.has_prices_as_of_time() ? &req.prices_as_of_time() : nullptr);
  if (!resolved.ok()) return resolved.status();
  const int64_t as_of = *resolved;
  absl::StatusOr<std::vector<planner::CompareTarget>> targets = CompareTargetsFrom(catalog, req);
  if (!targets.ok()) return targets.status();
  absl::StatusOr<std::vector<planner::CompareRow>> rows;
  core::ServingWorkload load;
  switch (req.workload_case()) {
    case v1::CompareRequest::kTraining: {
      absl::StatusOr<core::TrainingJob> job = TrainingJobFrom(catalog, req.training(), "training");
      if (!job.ok()) return job.status();
      rows = planner::CompareTraining(catalog, *job, *targets, as_of, {layouts, catalog.Version()});
      if (req.view() != v1::VIEW_BASIC) AddFormulas(TrainingFormulas(), resp->mutable_formulas());
      break;
    }
    case v1::CompareRequest::kServing: {
      absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(catalog, req.serving(), "serving");
      if (!w.ok()) return w.status();
      load = *w;
      rows = planner::CompareServing(catalog, load, *targets, as_of, {layouts, catalog.Version()});
      if (req.view() != v1::VIEW_BASIC) AddFormulas(ServingFormulas(), resp->mutable_formulas());
      break;
    }
    case v1::CompareRequest::WORKLOAD_NOT_SET:
      return absl::InvalidArgumentError("workload: set training or serving");
  }
  if (!rows.ok()) return rows.status();
  for (size_t i = 0; i < rows->size(); ++i) {
    const planner::CompareRow& r = (*rows)[i];
    v1::CompareRow* row = resp->add_rows();
    *row->mutable_target() = req.targets(static_cast<int>(i));
    if (r.training) {
      FillTrainingOption(catalog.Version(), r.supply, *r.training, row->mutable_option());
    } else if (r.serving) {
      FillServingOption(catalog.Version(), r.supply, *r.serving, load, row->mutable_option());
    } else {
      row->set_infeasible_reason(r.infeasible_reason);
    }
    row->set_speed_ratio_vs_first(r.speed_ratio_vs_first);
    row->set_cost_ratio_vs_first(r.cost_ratio_vs_first);
  }
  resp->set_catalog_version(catalog.Version());
  return absl::OkStatus();
}

namespace {

// Cost per 1M requests and output tokens of the parts that serve (those named "serving", or
// every part when none is), after checking they carry the load.
absl::Status ServingCosts(const core::CatalogView& catalog, const v1::TcoRequest& req, const core::TcoResult& tco,
                          v1::TcoResponse* resp) {
  absl::StatusOr<core::ServingWorkload> w = ServingWorkloadFrom(catalog, req.serving(), "serving");
  if (!w.ok()) return w.status();
  if (!(w->requests_per_second > 0)) {
    return absl::InvalidArgumentError("serving.requests_per_second: must be > 0 for per-request costs");
  }
  // Parts named "serving" carry the load; with none so named, every part does.
  bool any_serving_role = false;
  for (const v1::TcoFleet& f : req.fleets()) any_serving_role = any_serving_role || f.role() == "serving";
  double capacity = 0, own_serving = 0, rent_serving = 0;
  for (int i = 0; i < req.fleets_size(); ++i) {
    if (any_serving_role && req.fleets(i).role() != "serving") continue;
    own_serving += tco.fleets[i].own_usd_per_month;
    rent_serving += tco.fleets[i].rent_usd_per_month;
    capacity += ServingCapacity(catalog, *w, *catalog.FindGpu(req.fleets(i).gpu_name()), req.fleets(i).gpu_count());
  }
  resp->set_serving_capacity_requests_per_second(capacity);
  if (capacity < w->requests_per_second) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "serving: the serving GPUs carry %.2f req/s at the SLOs and %.0f%% planned use; the workload offers %.2f",
        capacity, w->target_utilization * 100, w->requests_per_second));
  }
  const core::ServingCostPerUnit c =
      core::ServingCosts(own_serving, rent_serving, w->requests_per_second, static_cast<double>(w->output_tokens));
  resp->set_own_usd_per_million_requests(c.own_usd_per_million_requests);
  resp->set_rent_usd_per_million_requests(c.rent_usd_per_million_requests);
  resp->set_own_usd_per_million_output_tokens(c.own_usd_per_million_output_tokens);
  resp->set_rent_usd_per_million_output_tokens(c.rent_usd_per_million_output_tokens);
  return absl::OkStatus();
}

}  // namespace

namespace {
std::atomic<int> tco_price_max_age_days{kDefaultTcoPriceMaxAgeDays};
}  // namespace

void SetTcoPriceMaxAgeDays(int days) { tco_price_max_age_days.store(days); }
int TcoPriceMaxAgeDays() { return tco_price_max_age_days.load(); }

absl::Status Tco(const core::CatalogView& catalog, const v1::TcoRequest& req, v1::TcoResponse* resp) {
  if (req.horizon_months() < 1 || req.horizon_months() > core::kMaxHorizonMonths) {
    return absl::InvalidArgumentError(
        absl::StrCat("horizon_months: must be in [1, ", core::kMaxHorizonMonths, "], got ", req.horizon_months()));
  }
  if (req.fleets_size() < 1 || req.fleets_size() > core::kMaxTcoFleets) {
    return absl::InvalidArgumentError(
        absl::StrCat("fleets: give 1 to ", core::kMaxTcoFleets, " fleet parts, got ", req.fleets_size()));
  }
  absl::StatusOr<int64_t> resolved =
      PricesAsOfFrom(req.prices_as_of_unix_seconds(), req.has_prices_as_of_time() ? &req.prices_as_of_time() : nullptr);
  if (!resolved.ok()) return resolved.status();
  const int64_t as_of = *resolved;
  v1::Provenance* prov = resp->mutable_provenance();
  prov->set_catalog_version(catalog.Version());
  core::TcoFinance finance;
  absl::Status fin = TcoFinanceFrom(req, &finance);
  if (!fin.ok()) return fin;
  std::vector<core::TcoFleet> fleets;
  std::vector<std::vector<v1::TcoAssumption>> assumptions(static_cast<size_t>(req.fleets_size()));
  std::vector<v1::StalePrice> dated;
  for (int i = 0; i < req.fleets_size(); ++i) {
    absl::StatusOr<core::TcoFleet> f = TcoFleetFrom(catalog, req.fleets(i), as_of, absl::StrCat("fleets[", i, "]"),
                                                    prov, &assumptions[static_cast<size_t>(i)], &dated);
    if (!f.ok()) return f.status();
    fleets.push_back(std::move(*f));
  }
  absl::StatusOr<core::TcoResult> tco = core::ComputeTco(fleets, req.horizon_months(), finance);
  if (!tco.ok()) return tco.status();
  TcoResultToProto(*tco, req, assumptions, resp);
  const int max_age = TcoPriceMaxAgeDays();
  for (v1::StalePrice& p : TcoStalePrices(std::move(dated), as_of, max_age)) {
    resp->add_warnings(absl::StrCat(p.field(), ": catalog price dated ", p.as_of_date(), " is ", p.age_days(),
                                    " days old at prices_as_of (limit ", max_age,
                                    " days, --tco_price_max_age_days): check the current list price"));
    *resp->add_stale_prices() = std::move(p);
  }
  if (req.has_serving()) {
    absl::Status s = ServingCosts(catalog, req, *tco, resp);
    if (!s.ok()) return s;
  }
  for (const std::string& f : core::TcoFormulas()) prov->add_formulas(f);
  return absl::OkStatus();
}

}  // namespace capplan::server
