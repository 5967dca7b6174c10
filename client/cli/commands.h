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
int RunDeploy(const std::vector<std::string>& args, GlobalOptions* global);
int RunCompare(const std::vector<std::string>& args, GlobalOptions* global);
int RunTco(const std::vector<std::string>& args, GlobalOptions* global);
int RunCatalog(const std::vector<std::string>& args, GlobalOptions* global);
int RunAdmin(const std::vector<std::string>& args, GlobalOptions* global);
// catalog tco-scenarios (tco_scenarios.cc).
int ListTcoScenarios(const std::vector<std::string>& args, GlobalOptions* global);

// Shared by plan and compare output.
std::string Where(const v1::PlanOption& option);
std::string Layout(const v1::Parallelism& p, bool serving);
// A serving layout with, for replicas across nodes, their nodes, GPUs per node and network:
// "tp=8 pp=2 x1 batch=96, 2 nodes x 8 GPUs per replica over infiniband (2 nodes billed)".
std::string ServingLayoutWithNodes(const v1::PlanOption& o);
std::string BottleneckLabel(v1::Bottleneck b);
// Training figures: days ("-" for 0, a figure the server did not fill), MFU in percent,
// the global batch in millions of tokens, and the fabric the estimate assumed ("-" when
// the answer names none, "fallback" for the server's assumed Ethernet).
std::string Days(double seconds);
std::string Mfu(const v1::PlanOption& o);
std::string BatchTokens(const v1::PlanOption& o);
std::string FabricLabel(const v1::PlanOption& o);
// With --explain: each option's explanation and provenance, then the response's
// formulas once.
// Each distinct price note of the options (spot interruption, reserved commitment), once.
void PrintPriceNotes(const std::vector<const v1::PlanOption*>& options);
void PrintExplanations(const std::vector<const v1::PlanOption*>& options,
                       const google::protobuf::RepeatedPtrField<std::string>& formulas);

}  // namespace capplan::cli
