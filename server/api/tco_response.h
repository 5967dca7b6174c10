// core::TcoResult to the TcoResponse: every existing field as before, plus the finance view
// (capex lines, assumptions and their sources, NPV, discounted break-even, rent options and
// the sensitivity tornado).
#pragma once

#include <vector>

#include "capplan/v1/planner.pb.h"
#include "core/tco/tco.h"

namespace capplan::server {

// `assumptions[i]` are fleet part i's defaults, as TcoFleetFrom recorded them.
void TcoResultToProto(const core::TcoResult& tco, const capplan::v1::TcoRequest& req,
                      const std::vector<std::vector<capplan::v1::TcoAssumption>>& assumptions,
                      capplan::v1::TcoResponse* resp);

}  // namespace capplan::server
