// How plan and compare print an option: where it runs, its layout, its
// bottleneck, and with
// --explain its explanation and provenance.
#include <iostream>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/cli/commands.h"

namespace capplan::cli {

std::string Where(const v1::PlanOption& o) {
  if (!o.owned_pool().empty()) return absl::StrCat("pool ", o.owned_pool());
  if (o.instance_type().empty()) return absl::StrCat(o.gpu_count(), " x ", o.gpu_name());
  const std::string& kind = o.provenance().price_kind();
  return absl::StrCat(o.provider(), " ", o.instance_type(), " x", o.instance_count(), " ", o.region(),
                      kind.empty() || kind == "on_demand" ? "" : absl::StrCat(" ", kind));
}

void PrintPriceNotes(const std::vector<const v1::PlanOption*>& options) {
  std::set<std::string> seen;
  for (const v1::PlanOption* o : options) {
    const std::string& note = o->provenance().price_note();
    if (!note.empty() && seen.insert(note).second) std::cout << "note: " << note << "\n";
  }
}

std::string Layout(const v1::Parallelism& p, bool serving) {
  if (serving && p.pipeline_parallel() > 1) {
    return absl::StrFormat("tp=%d pp=%d x%d batch=%d", p.tensor_parallel(), p.pipeline_parallel(), p.data_parallel(),
                           p.serving_batch_sequences());
  }
  if (serving) {
    return absl::StrFormat("tp=%d x%d batch=%d", p.tensor_parallel(), p.data_parallel(), p.serving_batch_sequences());
  }
  std::string out = absl::StrFormat("tp=%d pp=%d dp=%d z%d", p.tensor_parallel(), p.pipeline_parallel(),
                                    p.data_parallel(), p.zero_stage());
  // Shown only when they change the layout (1 or unset: plain 1F1B, no context or expert split).
  if (p.virtual_pipeline_stages() > 1) absl::StrAppend(&out, " vpp=", p.virtual_pipeline_stages());
  if (p.context_parallel() > 1) absl::StrAppend(&out, " cp=", p.context_parallel());
  if (p.expert_parallel() > 1) absl::StrAppend(&out, " ep=", p.expert_parallel());
  return out;
}

std::string ServingLayoutWithNodes(const v1::PlanOption& o) {
  std::string out = Layout(o.parallelism(), true);
  if (o.replica_node_count() <= 1) return out;
  absl::StrAppend(&out, ", ", o.replica_node_count(), " nodes x ", o.replica_gpus_per_node(), " GPUs per replica");
  if (o.has_fabric()) {
    absl::StrAppend(&out, " over ", EnumLabel(v1::NetworkKind_Name(o.fabric().network()), "NETWORK_KIND_"));
  }
  absl::StrAppend(&out, " (", o.node_count(), " nodes billed)");
  return out;
}

std::string Days(double seconds) { return seconds > 0 ? absl::StrFormat("%.2f", seconds / 86400) : "-"; }

std::string Mfu(const v1::PlanOption& o) {
  return o.mfu_fraction() > 0 ? absl::StrFormat("%.0f%%", o.mfu_fraction() * 100) : "-";
}

std::string BatchTokens(const v1::PlanOption& o) {
  return o.global_batch_tokens() > 0 ? absl::StrFormat("%.2fM", static_cast<double>(o.global_batch_tokens()) / 1e6)
                                     : "-";
}

std::string FabricLabel(const v1::PlanOption& o) {
  if (!o.has_fabric()) return "-";
  return o.fabric().name().empty() ? "fallback" : o.fabric().name();
}

std::string BottleneckLabel(v1::Bottleneck b) { return EnumLabel(v1::Bottleneck_Name(b), "BOTTLENECK_"); }

void PrintExplanations(const std::vector<const v1::PlanOption*>& options,
                       const google::protobuf::RepeatedPtrField<std::string>& formulas) {
  for (const v1::PlanOption* o : options) {
    // Compare rows have no rank; name them by where they run.
    std::cout << "\n"
              << (o->rank() > 0 ? absl::StrCat("#", o->rank()) : Where(*o)) << " " << o->explanation()
              << "\n  efficiency: " << o->provenance().efficiency_source() << "\n";
    for (const v1::Price& p : o->provenance().prices()) {
      std::cout << "  price: " << p.provider() << " " << p.instance_type() << " " << p.region() << " $"
                << p.price_usd_per_hour() << "/h " << EnumLabel(v1::PriceKind_Name(p.kind()), "PRICE_KIND_")
                << ", effective " << IsoDate(p.effective_unix_seconds()) << ", " << p.source().citation() << " ("
                << p.source().as_of_date() << ")\n";
    }
  }
  if (formulas.empty()) return;
  std::cout << "\nformulas:\n";
  for (const std::string& f : formulas) std::cout << "  " << f << "\n";
}

}  // namespace capplan::cli
