// TcoResultToProto: core's own-vs-rent answer to the API, field by field.
#include "server/api/tco_response.h"

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
  for (const v1::TcoAssumption& a : assumptions) *r->add_assumptions() = a;
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
  }
}

}  // namespace capplan::server
