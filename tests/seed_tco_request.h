// The user's own TCO template as a TcoRequest, shared by the service and integration suites.
#pragma once

#include "capplan/v1/planner.pb.h"

namespace capplan::testdata {

// The README's TCO template: own $250,000 up front + $5,000/month; cloud $15,000/month. Eight
// A100s, fully used; the $5,000 covers power, so no separate electricity. Owning breaks even
// in month 25.
inline capplan::v1::TcoRequest SeedTcoRequest() {
  capplan::v1::TcoRequest r;
  r.set_horizon_months(36);
  capplan::v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_own()->set_ops_usd_per_month(5000);
  f->mutable_own()->set_power_watts(0);
  f->mutable_own()->set_electricity_usd_per_kwh(0);
  f->mutable_rent()->set_price_usd_per_month(15000);
  return r;
}

}  // namespace capplan::testdata
