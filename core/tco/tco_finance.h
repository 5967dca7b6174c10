// The finance pieces of own-versus-rent (issue 15): discounting, level-payment financing,
// resale value, the monthly use profile, the ways to rent and the sensitivity tornado.
// Pure functions over core/tco.h's structs.
#pragma once

#include <cmath>
#include <vector>

#include "core/tco/tco.h"

namespace capplan::core {

// MACRS 5-year property (computers, IRS Publication 946, Table A-1) depreciates by 200%
// declining balance: 2 / 5 = 40% of the remaining value a year. A tax schedule, used as a
// resale curve only when the caller asks for it; real GPU resale prices are uncertain and
// move with each generation's launch.
inline constexpr double kMacrs5yDecliningBalanceFractionPerYear = 0.4;

// Spot interruption overhead: Young's first-order optimum checkpoint interval (J. W. Young,
// "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974) gives
// a lost fraction of about sqrt(2 C / M) for checkpoint time C and mean time between
// interruptions M. An assumption, not a measurement: a 5-minute checkpoint and one
// interruption a day give sqrt(2 x 5 / 1440) = 0.083. Callers should pass their own.
inline const double kDefaultSpotOverheadFraction = std::sqrt(2.0 * 5.0 / 1440.0);

// Level monthly payment that repays `principal_usd` over `months` at a nominal annual rate
// compounded monthly (i = rate / 12): P = principal x i / (1 - (1 + i)^-n), the ordinary
// annuity formula (Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2);
// principal / n at a zero rate.
double AnnuityPaymentUsd(double principal_usd, double rate_fraction_per_year, int months);

// What is still owed after `paid_months` level payments: B = C (1+i)^k - P ((1+i)^k - 1) / i.
double AnnuityBalanceUsd(double principal_usd, double rate_fraction_per_year, int months, int paid_months);

// Present value of 1 USD paid at the start of `month` (1-based): (1 + r/12)^-(month - 1).
double DiscountFactor(double rate_fraction_per_year, int month);

// Value left after `months` of declining balance at `rate_fraction_per_year`:
// value x (1 - rate)^(months / 12).
double DecliningBalanceUsd(double value_usd, double rate_fraction_per_year, int months);

// GPU-hours used in `month` (1-based): a straight ramp over ramp_months from the start
// use to the steady use, then steady.
double UsageInMonth(const TcoFleet& fleet, int month);

// The ways to rent every part's use over the horizon (on-demand, spot, each reserved term,
// and a reserved base sized to the least monthly use plus the cheapest hourly peak),
// cheapest first. A kind appears only when every part has a price for it.
std::vector<RentOption> RentOptions(const std::vector<TcoFleet>& fleets, int horizon_months,
                                    double discount_rate_fraction_per_year);

// NPV(own) - NPV(rent) with each of rent price, electricity price, utilisation, capex and
// discount rate at 80% and 120%, largest swing first. Inputs must already be valid.
std::vector<SensitivityEntry> Tornado(const std::vector<TcoFleet>& fleets, int horizon_months,
                                      const TcoFinance& finance);

}  // namespace capplan::core
