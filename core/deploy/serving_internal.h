// Shared by the co-located (serving_render.cc) and disaggregated (serving_disagg_render.cc)
// serving renderers.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/deploy/deploy.h"

namespace capplan::core::deploy {

// The plan's figures as annotations (capplan/...).
std::vector<std::pair<std::string, std::string>> ServingAnnotations(const ServingSpec& s);

// OK when a disaggregated option can be rendered; FailedPrecondition naming why not.
absl::Status DisaggregatedRenderable(const ServingSpec& s);
// Prefill and decode pools and the router (the target is KUBERNETES or COMMAND).
Rendered RenderDisaggregated(const ServingSpec& s, Target target);

}  // namespace capplan::core::deploy
