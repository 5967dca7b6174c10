// The CLI's command groups. Each takes the arguments after its group name
// ("plan training
// --model=..." arrives as {"training", "--model=..."}), parses its own flags
// and returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "client/cli/common.h"

namespace capplan::cli {

int RunPlan(const std::vector<std::string>& args, GlobalOptions* global);
int RunCompare(const std::vector<std::string>& args, GlobalOptions* global);
int RunTco(const std::vector<std::string>& args, GlobalOptions* global);
int RunCatalog(const std::vector<std::string>& args, GlobalOptions* global);
int RunAdmin(const std::vector<std::string>& args, GlobalOptions* global);

// Shared by plan and compare output.
std::string Where(const v1::PlanOption& option);
std::string Layout(const v1::Parallelism& p, bool serving);
std::string BottleneckLabel(v1::Bottleneck b);
// With --explain: each option's explanation and provenance, then the response's
// formulas once.
void PrintExplanations(const std::vector<const v1::PlanOption*>& options,
                       const google::protobuf::RepeatedPtrField<std::string>& formulas);

}  // namespace capplan::cli
