// TcoResultToProto: core's own-vs-rent answer to the API, field by field.
#include "server/api/tco_response.h"

#include "absl/strings/str_cat.h"

namespace capplan::server {

namespace v1 = capplan::v1;

namespace {

void FleetToProto(const core::TcoFleetResult& f, const v1::TcoFleet& in,
                  const std::vector<v1::TcoAssumption>& assumptions, v1::TcoFleetResult* r) {
  r->set_role(in.role());
  r->set_gpu_name(in.gpu_name());
  r->set_gpu_count(in.gpu_count());
  r->set_own_usd_per_month(f.own_usd_per_month);
  r->set_own_capex_usd(f.own_capex_usd);
  r->set_own_power_usd_per_month(f.own_power_usd_per_month);
  r->set_rent_usd_per_month(f.rent_usd_per_month);
  r->set_rent_usd_per_gpu_hour(f.rent_usd_per_gpu_hour);
  r->set_break_even_gpu_hours_per_month(f.break_even_gpu_hours_per_month);
  for (const core::CapexItem& i : f.capex_items) {
    v1::CapexLine* l = r->add_capex_lines();
    l->set_name(i.name);
    l->set_usd(i.usd);
    l->set_source(i.source);
  }
  r->set_power_watts_at_steady_use(f.power_watts_at_steady_use);
  r->set_maintenance_usd_per_month(f.maintenance_usd_per_month);
  r->set_failure_replacement_usd_per_month(f.failure_replacement_usd_per_month);
  r->set_lease_usd_per_month(f.lease_usd_per_month);
  r->set_residual_value_usd(f.residual_value_usd);
  r->set_break_even_never(f.break_even_never);
  r->set_break_even_utilization_fraction(f.break_even_utilization_fraction);
  r->set_own_running_usd_per_month(f.own_running_usd_per_month);
  r->set_break_even_applies(f.break_even_applies);
  r->set_colocation_usd_per_month(f.colocation_usd_per_month);
  r->set_support_usd_per_month(f.support_usd_per_month);
  r->set_software_usd_per_month(f.software_usd_per_month);
  r->set_staff_usd_per_month(f.staff_usd_per_month);
  for (const v1::TcoAssumption& a : assumptions) *r->add_assumptions() = a;
}

// The optional cost lines a part left at 0, so a reader sees what the figures leave out.
void NotIncluded(const v1::TcoRequest& req, v1::TcoResponse* resp) {
  for (int i = 0; i < req.fleets_size(); ++i) {
    const v1::OwnCosts& own = req.fleets(i).own();
    const std::pair<const char*, double> lines[] = {
        {"colocation_usd_per_kw_month", own.colocation_usd_per_kw_month()},
        {"support_usd_per_month", own.support_usd_per_month()},
        {"software_usd_per_gpu_month", own.software_usd_per_gpu_month()},
        {"staff_usd_per_month", own.staff_usd_per_month()},
        {"ops_usd_per_month", own.ops_usd_per_month()},
        {"maintenance_fraction_per_year", own.maintenance_fraction_per_year()},
        {"failure_replacement_fraction_per_year", own.failure_replacement_fraction_per_year()},
        {"resale (residual_value_usd, residual_decline_fraction_per_year)",
         own.residual_value_usd() + own.residual_decline_fraction_per_year()}};
    for (const auto& [name, value] : lines) {
      if (value == 0) resp->add_not_included(absl::StrCat("fleets[", i, "].own.", name, ": not included (0)"));
    }
  }
  if (req.tax_rate_fraction() == 0) {
    resp->add_not_included("tax_rate_fraction: not included (0): pre-tax cash, no depreciation tax shield");
  }
}

void Warnings(const core::TcoResult& tco, const v1::TcoRequest& req, v1::TcoResponse* resp) {
  for (size_t i = 0; i < tco.fleets.size(); ++i) {
    const int n = static_cast<int>(i);
    if (!tco.fleets[i].break_even_applies) {
      resp->add_warnings(absl::StrCat("fleets[", n,
                                      "]: the rent is flat (rent.price_usd_per_month), so no use level changes "
                                      "the comparison: break-even use does not apply"));
    }
  }
  bool idle = true;
  for (const core::TcoMonth& m : tco.series) idle = idle && m.used_gpu_hours == 0;
  if (idle) resp->add_warnings("no use over the horizon: the per-GPU-hour figures are 0 (nothing to divide by)");
  for (const core::SensitivityEntry& e : tco.sensitivity) {
    if (e.low_clamped || e.high_clamped) resp->add_warnings(absl::StrCat("sensitivity ", e.input, ": ", e.note));
  }
}

}  // namespace

void TcoResultToProto(const core::TcoResult& tco, const v1::TcoRequest& req,
                      const std::vector<std::vector<v1::TcoAssumption>>& assumptions, v1::TcoResponse* resp) {
  for (size_t i = 0; i < tco.fleets.size(); ++i) {
    FleetToProto(tco.fleets[i], req.fleets(static_cast<int>(i)), assumptions[i], resp->add_fleets());
  }
  for (const core::TcoMonth& m : tco.series) {
    v1::TcoPoint* pt = resp->add_series();
    pt->set_month(m.month);
    pt->set_own_usd(m.own_usd);
    pt->set_rent_usd(m.rent_usd);
    pt->set_own_cumulative_usd(m.own_cumulative_usd);
    pt->set_rent_cumulative_usd(m.rent_cumulative_usd);
    pt->set_used_gpu_hours(m.used_gpu_hours);
    pt->set_own_discounted_cumulative_usd(m.own_discounted_cumulative_usd);
    pt->set_rent_discounted_cumulative_usd(m.rent_discounted_cumulative_usd);
  }
  resp->set_break_even_month(tco.break_even_month);
  resp->set_break_even_gpu_hours_per_month(tco.break_even_gpu_hours_per_month);
  resp->set_own_usd_per_used_gpu_hour(tco.own_usd_per_used_gpu_hour);
  resp->set_rent_usd_per_used_gpu_hour(tco.rent_usd_per_used_gpu_hour);
  resp->set_break_even_month_never(tco.break_even_month_never);
  resp->set_npv_own_usd(tco.npv_own_usd);
  resp->set_npv_rent_usd(tco.npv_rent_usd);
  resp->set_discounted_break_even_month(tco.discounted_break_even_month);
  resp->set_discounted_break_even_never(tco.discounted_break_even_never);
  resp->set_break_even_usage_never(tco.break_even_usage_never);
  resp->set_break_even_utilization_fraction(tco.break_even_utilization_fraction);
  resp->set_discount_rate_fraction_per_year(req.discount_rate_fraction_per_year());
  resp->set_own_levelised_usd_per_gpu_hour(tco.own_levelised_usd_per_gpu_hour);
  resp->set_rent_levelised_usd_per_gpu_hour(tco.rent_levelised_usd_per_gpu_hour);
  resp->set_break_even_usage_applies(tco.break_even_usage_applies);
  resp->set_cash_timing(req.cash_timing() == v1::CASH_TIMING_START_OF_MONTH ? v1::CASH_TIMING_START_OF_MONTH
                                                                            : v1::CASH_TIMING_END_OF_MONTH);
  resp->set_rate_basis(req.rate_basis() == v1::RATE_BASIS_NOMINAL_MONTHLY ? v1::RATE_BASIS_NOMINAL_MONTHLY
                                                                          : v1::RATE_BASIS_EFFECTIVE_ANNUAL);
  resp->set_tax_rate_fraction(req.tax_rate_fraction());
  for (const core::RentOption& o : tco.rent_options) {
    v1::RentOption* p = resp->add_rent_options();
    p->set_kind(o.kind);
    p->set_total_usd(o.total_usd);
    p->set_npv_usd(o.npv_usd);
    p->set_reserved_gpu_count(o.reserved_gpus);
    p->set_note(o.note);
  }
  for (const core::SensitivityEntry& e : tco.sensitivity) {
    v1::SensitivityEntry* p = resp->add_sensitivity();
    p->set_input(e.input);
    p->set_npv_difference_low_usd(e.npv_difference_low_usd);
    p->set_npv_difference_high_usd(e.npv_difference_high_usd);
    p->set_swing_usd(e.swing_usd);
    p->set_low_clamped(e.low_clamped);
    p->set_high_clamped(e.high_clamped);
    p->set_note(e.note);
  }
  NotIncluded(req, resp);
  Warnings(tco, req, resp);
}

}  // namespace capplan::server
