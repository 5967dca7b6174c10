// Serving, disaggregated: separate prefill and decode pools of SGLang servers and the SGLang
// router pairing them, as Kubernetes StatefulSets (stable pod names the router can list) or
// as the launch commands alone.
//
// Flags, by SGLang's documentation: sgl-project/sglang docs/advanced_features/pd_disaggregation.md
// at commit cccb65463e6cd3fcb1af70f8c536e7b61c4eb68c ("Llama Single Node" under NIXL:
// `sglang.launch_server ... --disaggregation-mode prefill|decode --disaggregation-transfer-backend
// nixl`, `sglang_router.launch_router --pd-disaggregation --prefill URL --decode URL --host
// --port`), with the server arguments serving_render.cc cites. StatefulSet and headless
// Service: Kubernetes apps/v1 and v1, pods reachable as <set>-<ordinal>.<service>.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/deploy/deploy.h"
#include "core/deploy/kube.h"
#include "core/deploy/serving_internal.h"
#include "core/deploy/text.h"

namespace capplan::core::deploy {
namespace {

constexpr int kServerPort = 30000;  // SGLang's default port
constexpr int kRouterPort = 8000;   // the documented router example's
constexpr char kImage[] = "lmsysorg/sglang:latest";
constexpr char kRocmImage[] = "lmsysorg/sglang:latest-rocm";
constexpr int kDigitsFraction = 3;

struct Role {
  const char* mode;  // prefill or decode
  int replicas;
  int tp;
};

std::vector<std::string> ServerArgs(const ServingSpec& s, const Role& r) {
  std::vector<std::string> a = {"python3",
                                "-m",
                                "sglang.launch_server",
                                "--model-path",
                                s.model_path,
                                "--host",
                                "0.0.0.0",
                                "--port",
                                absl::StrCat(kServerPort),
                                "--tp-size",
                                absl::StrCat(r.tp),
                                "--disaggregation-mode",
                                r.mode,
                                "--disaggregation-transfer-backend",
                                "nixl",
                                "--context-length",
                                absl::StrCat(s.max_model_len),
                                "--mem-fraction-static",
                                Figure(s.memory_fraction, kDigitsFraction)};
  // The planned batch is the decode pool's; prefill runs what arrives.
  if (std::string(r.mode) == "decode") a.insert(a.end(), {"--max-running-requests", absl::StrCat(s.max_num_seqs)});
  AddQuantization(s, "fp8_e4m3", &a);
  return a;
}

std::string SetName(const ServingSpec& s, const Role& r) { return absl::StrCat(s.name, "-", r.mode); }

// The router's argv; `url(mode, i)` spells server i of a pool as the target reaches it.
template <typename Url>
std::vector<std::string> RouterArgs(const ServingSpec& s, Url url) {
  std::vector<std::string> a = {"python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"};
  for (int i = 0; i < s.prefill_replicas; ++i) a.insert(a.end(), {"--prefill", url("prefill", i)});
  for (int i = 0; i < s.replicas; ++i) a.insert(a.end(), {"--decode", url("decode", i)});
  a.insert(a.end(), {"--host", "0.0.0.0", "--port", absl::StrCat(kRouterPort)});
  return a;
}

KeyValues RoleLabels(const ServingSpec& s, const char* role) {
  return {{"app.kubernetes.io/name", s.name}, {"app.kubernetes.io/managed-by", "capplan"}, {"capplan/role", role}};
}

std::string PoolYaml(const ServingSpec& s, const Role& r) {
  const std::string name = SetName(s, r);
  Container c;
  c.name = "engine";
  c.image = s.accelerator == Accelerator::kAmd ? kRocmImage : kImage;
  c.command = ServerArgs(s, r);
  c.accelerator = s.accelerator;
  c.gpus = r.tp;
  c.port = kServerPort;
  c.health = "/health";
  const KeyValues labels = RoleLabels(s, r.mode);
  return absl::StrCat(
      "apiVersion: v1\nkind: Service\n", Metadata(name, labels, {}, 0),
      "spec:\n  clusterIP: None\n  selector:\n    app.kubernetes.io/name: ", s.name, "\n    capplan/role: ", r.mode,
      "\n  ports:\n    - name: http\n      port: ", kServerPort, "\n---\napiVersion: apps/v1\nkind: StatefulSet\n",
      Metadata(name, labels, {}, 0), "spec:\n  serviceName: ", name, "\n  replicas: ", r.replicas,
      "\n  podManagementPolicy: Parallel\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: ", s.name,
      "\n      capplan/role: ", r.mode, "\n  template:\n", Metadata("", labels, {}, 4), "    spec:\n",
      PodSpec(c, s.from.gpu_name, "Always", 6));
}

std::string RouterYaml(const ServingSpec& s) {
  const std::string name = absl::StrCat(s.name, "-router");
  auto url = [&](const char* mode, int i) {
    return absl::StrCat("http://", s.name, "-", mode, "-", i, ".", s.name, "-", mode, ":", kServerPort);
  };
  const KeyValues labels = RoleLabels(s, "router");
  std::string out =
      absl::StrCat("apiVersion: apps/v1\nkind: Deployment\n", Metadata(name, labels, ServingAnnotations(s), 0),
                   "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: ", s.name,
                   "\n      capplan/role: router\n  template:\n", Metadata("", labels, {}, 4),
                   "    spec:\n      containers:\n", "        - name: router\n          image: ", YamlQuote(kImage),
                   "\n          command:\n", YamlList(RouterArgs(s, url), 12),
                   "          ports:\n            - name: http\n              containerPort: ", kRouterPort,
                   "\n---\napiVersion: v1\nkind: Service\n", Metadata(s.name, labels, {}, 0),
                   "spec:\n  selector:\n    app.kubernetes.io/name: ", s.name,
                   "\n    capplan/role: router\n  ports:\n    - name: http\n      port: ", kRouterPort,
                   "\n      targetPort: ", kRouterPort, "\n");
  return out;
}

std::string CommandScript(const ServingSpec& s, const Role& prefill, const Role& decode) {
  std::string out = absl::StrCat(ProvenanceComment(s.from, "#"), "# Prefill servers (", prefill.replicas, ", ",
                                 prefill.tp, " GPUs each): run on each, its address in PREFILL_<i>.\n",
                                 ShellLine(ServerArgs(s, prefill), 2), "\n# Decode servers (", decode.replicas, ", ",
                                 decode.tp, " GPUs each): run on each, its address in DECODE_<i>.\n",
                                 ShellLine(ServerArgs(s, decode), 2), "\n# The router, pairing them:\n");
  auto url = [](const char* mode, int i) {
    return absl::StrCat("http://${", std::string(mode) == "prefill" ? "PREFILL_" : "DECODE_", i, "}:", kServerPort);
  };
  absl::StrAppend(&out, ShellLine(RouterArgs(s, url), 2), "\n");
  return out;
}

}  // namespace

absl::Status DisaggregatedRenderable(const ServingSpec& s) {
  if (s.engine != ServingEngine::kSglang) {
    return absl::FailedPreconditionError(absl::StrCat(
        "option is disaggregated (separate prefill and decode pools); Deploy renders those for SGLang, whose "
        "prefill/decode mode and router are documented; plan with engine sglang, or pick a co-located option "
        "(option_rank); engine ",
        ServingEngineName(s.engine), " was planned"));
  }
  if (s.replica_nodes > 1) {
    return absl::FailedPreconditionError(
        "option is disaggregated with replicas across nodes; Deploy renders disaggregated pools inside a node");
  }
  if (s.prefill_replicas < 1 || s.prefill_tp < 1) {
    return absl::InvalidArgumentError("serving spec: a disaggregated option needs prefill replicas and tp of 1+");
  }
  return absl::OkStatus();
}

Rendered RenderDisaggregated(const ServingSpec& s, Target target) {
  const Role prefill{"prefill", s.prefill_replicas, s.prefill_tp};
  const Role decode{"decode", s.replicas, s.tensor_parallel};
  Rendered r;
  r.notes.push_back(
      "the servers need NIXL (pip install nixl) for the KV transfer and the router sglang-router (pip install "
      "sglang-router); SGLang also documents Mooncake with an InfiniBand device");
  if (target == Target::kCommand) {
    r.files.push_back({"serve.sh", CommandScript(s, prefill, decode), "text/x-shellscript"});
    return r;
  }
  r.files.push_back({"disaggregated.yaml",
                     absl::StrCat(ProvenanceComment(s.from, "#"), PoolYaml(s, prefill), "---\n", PoolYaml(s, decode),
                                  "---\n", RouterYaml(s)),
                     "application/yaml"});
  r.notes.push_back(NodeSelectorNote(s.accelerator, s.from.gpu_name));
  r.notes.push_back(absl::StrCat("image ", kImage, ": pin the tag you have tested"));
  return r;
}

}  // namespace capplan::core::deploy
