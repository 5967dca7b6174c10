// The finance pieces of own-versus-rent (docs/estimator.md, TCO): discounting, level-payment financing,
// resale value, the monthly use profile, the ways to rent and the sensitivity tornado.
// Pure functions over core/tco.h's structs.
#pragma once

#include <cmath>
#include <vector>

#include "core/tco/tco.h"

namespace capplan::core {

// 200% declining balance over a 5-year life: 2 / 5 = 40% of the remaining value a year, so
// 0.6^3 = 21.6% is left after 3 years. This is NOT MACRS: MACRS 5-year property (IRS
// Publication 946, Table A-1) starts from it but applies the half-year convention and
// switches to straight line, giving 20, 32, 19.2, 11.52, 11.52 and 5.76% a year (28.8% book
// value after 3 years; kMacrs5yFractions). A resale curve only when the caller asks for it;
// real GPU resale prices are uncertain and move with each generation's launch.
inline constexpr double kDecliningBalance200Pct5yFractionPerYear = 0.4;

// MACRS 5-year property, half-year convention: IRS Publication 946 (2023), Appendix A,
// Table A-1, the 5-year column.
inline constexpr double kMacrs5yFractions[6] = {0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576};

// Spot interruption overhead: Young's first-order optimum checkpoint interval (J. W. Young,
// "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974) gives
// a lost fraction of about sqrt(2 C / M) for checkpoint time C and mean time between
// interruptions M. An assumption, not a measurement: a 5-minute checkpoint and one
// interruption a day give sqrt(2 x 5 / 1440) = 0.083. Callers should pass their own.
inline const double kDefaultSpotOverheadFraction = std::sqrt(2.0 * 5.0 / 1440.0);

// Level monthly payment that repays `principal_usd` over `months` at a nominal annual rate
// compounded monthly (i = rate / 12): P = principal x i / (1 - (1 + i)^-n), the ordinary
// annuity formula (Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2);
// principal / n at a zero rate. With a balloon B due with the last payment:
// P = (principal - B (1 + i)^-n) x i / (1 - (1 + i)^-n).
double AnnuityPaymentUsd(double principal_usd, double rate_fraction_per_year, int months, double balloon_usd = 0);

// What is still owed after `paid_months` level payments: B = C (1+i)^k - P ((1+i)^k - 1) / i
// (the balloon, if any, after the last payment; 0 once every payment is made).
double AnnuityBalanceUsd(double principal_usd, double rate_fraction_per_year, int months, int paid_months,
                         double balloon_usd = 0);

// Present value of 1 USD paid at the start of `month` (1-based) at a nominal annual rate
// compounded monthly: (1 + r/12)^-(month - 1).
double DiscountFactor(double rate_fraction_per_year, int month);

// The monthly discount rate of `finance`: effective (1 + r)^(1/12) - 1, or nominal r / 12.
double MonthlyRate(const TcoFinance& finance);

// When month `month`'s running cash is paid, in months from the start: month (end of month)
// or month - 1 (start). The capex is always paid at 0.
double FlowTimeMonths(const TcoFinance& finance, int month);

// Present value of 1 USD paid in `month` under `finance`'s timing and rate basis.
double PresentValueFactor(const TcoFinance& finance, int month);

// Tax depreciation of `f` in its `service_month`-th month in service (1-based): straight line
// capex / depreciation_months, or MACRS 5-year: the year's Table A-1 share / 12.
double TaxDepreciationUsd(const TcoFleet& f, int service_month);

// Rent price multiplier in `month`: (1 - decline)^(whole years before the month).
double RentPriceFactor(const TcoFleet& f, int month);

// Value left after `months` of declining balance at `rate_fraction_per_year`:
// value x (1 - rate)^(months / 12).
double DecliningBalanceUsd(double value_usd, double rate_fraction_per_year, int months);

// GPU-hours used in `month` (1-based): a straight ramp over ramp_months from the start
// use to the steady use, then steady.
double UsageInMonth(const TcoFleet& fleet, int month);

// The ways to rent every part's use over the horizon (on-demand, spot, each reserved term,
// and a reserved base sized to the least monthly use plus the cheapest hourly peak),
// cheapest first. A kind appears only when every part has a price for it.
// Each kind's rent falls with rent_price_decline_fraction_per_year (a reserved term keeps the
// price of the month it starts in); after tax when finance.tax_rate_fraction > 0.
std::vector<RentOption> RentOptions(const std::vector<TcoFleet>& fleets, int horizon_months, const TcoFinance& finance);

// NPV(own) - NPV(rent) with each of rent price, electricity price, utilisation, capex and
// discount rate at 80% and 120%, largest swing first. A bound outside the input's valid
// range is clamped to it and flagged. Inputs must already be valid.
std::vector<SensitivityEntry> Tornado(const std::vector<TcoFleet>& fleets, int horizon_months,
                                      const TcoFinance& finance);

}  // namespace capplan::core
