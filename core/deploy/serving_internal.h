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

// The FP8 weight and KV-cache flags; `kv_fp8` is the engine's name for FP8 KV (INT8/INT4
// weights come as a pre-quantized checkpoint whose config names its method: no flag).
void AddQuantization(const ServingSpec& s, const char* kv_fp8, std::vector<std::string>* a);

// OK when a disaggregated option can be rendered; FailedPrecondition naming why not.
absl::Status DisaggregatedRenderable(const ServingSpec& s);
// Prefill and decode pools and the router (the target is KUBERNETES or COMMAND).
Rendered RenderDisaggregated(const ServingSpec& s, Target target);

}  // namespace capplan::core::deploy
