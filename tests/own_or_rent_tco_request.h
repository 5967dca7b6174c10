// The README's own-or-rent example as a TcoRequest, shared by the service and integration suites.
#pragma once

#include "capplan/v1/planner.pb.h"

namespace capplan::testdata {

// README.md, "Own or rent?" (the same figures in docs/cli.md's `capplan tco` example): eight
// A100-SXM4-80GB owned for $250,000 up front + $5,000/month, or rented for $15,000/month, over
// 36 months, fully used; the $5,000 covers power, so no separate electricity. Owning breaks
// even in month 25: 250,000 + 5,000 m <= 15,000 m first at m = 25.
inline capplan::v1::TcoRequest ReadmeOwnOrRentRequest() {
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
