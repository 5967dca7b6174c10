// capplan admin upsert-fabric|delete-fabric|upsert-electricity|delete-electricity|upsert-instance|upsert-gpu|
// record-benchmark:
// catalog-row writes, each with a flag per field of the row (units in the flag names).
#include <google/protobuf/util/json_util.h>

#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "client/cli/admin.h"

namespace capplan::cli {

void AddRowSourceFlags(FlagSet* flags, RowSourceFlags* s) {
  flags->String("citation", "TEXT", "where the figures come from (required)", &s->citation);
  IsoDateFlag(flags, "as_of_date", "the date the source was read (required)", &s->as_of_date);
  flags->String("note", "TEXT", "uncertainty or caveat", &s->note);
  flags->String("request_id", "ID", "idempotency key: a retried write with the same id applies once (default: random)",
                &s->request_id);
}

void SetSource(const RowSourceFlags& s, v1::Source* out) {
  out->set_citation(s.citation);
  out->set_as_of_date(s.as_of_date);
  out->set_note(s.note);
}

namespace {

const CommandInfo kUpsertFabric = {
    "admin upsert-fabric", "add or replace a named fabric: the link inside a node and the network between nodes",
    "--name=NAME --gpus_per_node=N --intra_link=KIND --intra_node_gbyte_per_s_per_gpu=GB/s --network_kind=KIND "
    "[--network_gbit_per_s_per_gpu=Gbit/s | --network_gbit_per_s_per_node=Gbit/s] --network_latency_us=US "
    "--citation=TEXT --as_of_date=YYYY-MM-DD",
    "  capplan admin upsert-fabric --name=lab-rig --gpus_per_node=4 --intra_link=pcie \\\n"
    "    --intra_node_gbyte_per_s_per_gpu=32 --network_kind=ethernet --network_gbit_per_s_per_node=25 \\\n"
    "    --network_latency_us=30 --citation=\"lab inventory\" --as_of_date=2026-11-30"};
const CommandInfo kDeleteFabric = {"admin delete-fabric",
                                   "delete a fabric that no instance type, GPU or benchmark names", "--name=NAME",
                                   "  capplan admin delete-fabric --name=lab-rig"};
const CommandInfo kUpsertInstance = {
    "admin upsert-instance", "add or replace an instance type in one region (its prices: admin set-price)",
    "--provider=NAME --instance_type=TYPE --region=REGION --gpu=NAME --gpu_count=N [--fabric=NAME] "
    "--citation=TEXT --as_of_date=YYYY-MM-DD [flags]",
    "  capplan admin upsert-instance --provider=lab --instance_type=rig-4x-a10g --region=home --gpu=A10G \\\n"
    "    --gpu_count=4 --fabric=lab-rig --citation=\"lab inventory\" --as_of_date=2026-11-30"};
const CommandInfo kUpsertGpu = {
    "admin upsert-gpu",
    "replace a GPU row: the catalog's current row (or --file), with its default fabric and owning figures from flags",
    "--name=NAME [--file=PATH] [--fabric=NAME] [owning flags]",
    "  capplan admin upsert-gpu --name=A10G --fabric=pcie-server-gen4-100gbe\n"
    "  capplan admin upsert-gpu --name=L40S --system_power_watts_per_gpu=600 --idle_power_fraction=0.3 \\\n"
    "    --system_price_usd_per_gpu=15000 --price_uncertainty_fraction=0.1"};
const CommandInfo kUpsertElectricity = {
    "admin upsert-electricity", "add or replace the price of electricity in a region (for owning)",
    "--region=REGION --usd_per_kwh=X --citation=TEXT --as_of_date=YYYY-MM-DD [--note=TEXT]",
    "  capplan admin upsert-electricity --region=us-east-2 --usd_per_kwh=0.1075 \\\n"
    "    --citation=\"EIA Electric Power Annual 2023, Ohio commercial\" --as_of_date=2023-12-31"};
const CommandInfo kDeleteElectricity = {"admin delete-electricity", "delete a region's electricity price",
                                        "--region=REGION", "  capplan admin delete-electricity --region=us-east-2"};
const CommandInfo kRecordBenchmark = {
    "admin record-benchmark", "record a measured benchmark, with the published layout of a training run",
    "--gpu=NAME --model=NAME --workload=KIND --precision=P --gpu_count=N --value=X --unit=UNIT "
    "--citation=TEXT --as_of_date=YYYY-MM-DD [flags]",
    "  capplan admin record-benchmark --gpu=H100-SXM5-80GB --model=Llama-2-13B --workload=training \\\n"
    "    --precision=bf16 --gpu_count=16 --sequence_tokens=4096 --value=48000 --unit=tokens_per_second \\\n"
    "    --tensor_parallel=4 --pipeline_parallel=2 --data_parallel=2 --fabric=dgx-h100-ndr \\\n"
    "    --citation=\"our run 2026-11\" --as_of_date=2026-11-30"};

void AddFabricFlags(FlagSet* flags, v1::Fabric* f, double* node_gbit) {
  flags->Custom("name", "NAME", "the fabric's catalog name, e.g. lab-rig", "",
                [f](const std::string& v) { return f->set_name(v), absl::OkStatus(); });
  IntField(flags, "gpus_per_node", "GPUs sharing the fast intra-node link (1: none)", "", 1, 576,
           [f](int64_t n) { f->set_gpus_per_node(static_cast<int32_t>(n)); });
  EnumField<v1::InterconnectKind>(flags, "intra_link", "pcie|nvlink|infinity_fabric|xe_link", "the link inside a node",
                                  "", "INTERCONNECT_KIND_", v1::InterconnectKind_Parse,
                                  [f](v1::InterconnectKind k) { f->set_intra_link(k); });
  NumberField(flags, "intra_node_gbyte_per_s_per_gpu", "GB/s",
              "intra-node bandwidth per GPU, one direction, in 1e9 bytes/s (900 GB/s NVLink bidirectional: 450)", "", 0,
              false, 1e4, [f](double d) { f->set_intra_node_bytes_per_second_per_gpu(d * 1e9); });
  EnumField<v1::NetworkKind>(flags, "network_kind", "none|ethernet|efa|infiniband|roce", "the network between nodes",
                             "", "NETWORK_KIND_", v1::NetworkKind_Parse, [f](v1::NetworkKind k) { f->set_network(k); });
  NumberField(flags, "network_gbit_per_s_per_gpu", "Gbit/s",
              "network bandwidth per GPU, one direction, in 1e9 bits/s (stored in bytes/s: / 8)", "0", 0, true, 1e4,
              [f](double d) { f->set_network_bytes_per_second_per_gpu(d * 1e9 / 8); });
  NumberField(flags, "network_gbit_per_s_per_node", "Gbit/s",
              "or a node's NIC bandwidth, the figure vendors print, in 1e9 bits/s; stored per GPU "
              "(/ 8 / gpus_per_node)",
              "0", 0, true, 1e6, [node_gbit](double d) { *node_gbit = d; });
  NumberField(flags, "network_latency_us", "US", "one small message end to end, in microseconds", "0", 0, true, 1e4,
              [f](double d) { f->set_network_latency_seconds(d * 1e-6); });
}

}  // namespace

int UpsertFabric(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::UpsertFabricRequest r;
  RowSourceFlags source;
  double node_gbit = 0;
  AddFabricFlags(&flags, r.mutable_fabric(), &node_gbit);
  AddRowSourceFlags(&flags, &source);
  const int rc = ParseCommandFlags(kUpsertFabric, args, &flags, global);
  if (rc >= 0) return rc;
  v1::Fabric* f = r.mutable_fabric();
  if (node_gbit > 0) {
    if (f->network_bytes_per_second_per_gpu() > 0) {
      return UsageError(kUpsertFabric.path,
                        "give one of --network_gbit_per_s_per_gpu and --network_gbit_per_s_per_node");
    }
    if (f->gpus_per_node() <= 0) {
      return UsageError(kUpsertFabric.path, "--network_gbit_per_s_per_node needs --gpus_per_node");
    }
    f->set_network_bytes_per_second_per_gpu(node_gbit * 1e9 / 8 / f->gpus_per_node());
  }
  SetSource(source, f->mutable_source());
  r.set_request_id(source.request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::UpsertFabricRequest& q) { return c.UpsertFabric(q); },
      "fabric " + f->name() + " written");
}

int DeleteFabric(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteFabricRequest r;
  std::string request_id;
  flags.Custom("name", "NAME", "the fabric to delete", "",
               [&r](const std::string& v) { return r.set_name(v), absl::OkStatus(); });
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kDeleteFabric, args, &flags, global);
  if (rc >= 0) return rc;
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::DeleteFabricRequest& q) { return c.DeleteFabric(q); },
      "fabric " + r.name() + " deleted");
}

int UpsertElectricity(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::UpsertElectricityPriceRequest r;
  v1::ElectricityPrice* e = r.mutable_price();
  RowSourceFlags source;
  flags.Custom("region", "REGION", "a cloud region (us-east-1, eastus, ...) or a place", "",
               [e](const std::string& v) { return e->set_region(v), absl::OkStatus(); });
  NumberField(&flags, "usd_per_kwh", "USD", "the price of one kWh in US dollars (0.0895: 8.95 cents)", "", 0, false, 10,
              [e](double d) { e->set_usd_per_kwh(d); });
  AddRowSourceFlags(&flags, &source);
  const int rc = ParseCommandFlags(kUpsertElectricity, args, &flags, global);
  if (rc >= 0) return rc;
  SetSource(source, e->mutable_source());
  r.set_request_id(source.request_id);
  return Send(
      *global, r,
      [](client::Client& c, const v1::UpsertElectricityPriceRequest& q) { return c.UpsertElectricityPrice(q); },
      "electricity price for " + e->region() + " written");
}

int DeleteElectricity(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::DeleteElectricityPriceRequest r;
  std::string request_id;
  flags.Custom("region", "REGION", "the region whose price to delete", "",
               [&r](const std::string& v) { return r.set_region(v), absl::OkStatus(); });
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  const int rc = ParseCommandFlags(kDeleteElectricity, args, &flags, global);
  if (rc >= 0) return rc;
  r.set_request_id(request_id);
  return Send(
      *global, r,
      [](client::Client& c, const v1::DeleteElectricityPriceRequest& q) { return c.DeleteElectricityPrice(q); },
      "electricity price for " + r.region() + " deleted");
}

namespace {

// Owning figures that upsert-gpu replaces in the row it writes (unset: kept).
struct OwningFlags {
  std::optional<double> system_power_watts_per_gpu, idle_power_fraction, system_price_usd_per_gpu,
      price_uncertainty_fraction;
};

void AddOwningFlags(FlagSet* flags, OwningFlags* o) {
  NumberField(flags, "system_power_watts_per_gpu", "W",
              "a whole server's power at full load per GPU, in watts (DGX H100: 10,200 / 8)", "the row's", 0, true, 1e4,
              [o](double d) { o->system_power_watts_per_gpu = d; });
  NumberField(flags, "idle_power_fraction", "F", "the share of that power drawn when idle, in [0, 1]", "the row's", 0,
              true, 1, [o](double d) { o->idle_power_fraction = d; });
  NumberField(flags, "system_price_usd_per_gpu", "USD", "a whole server's price per GPU, in US dollars", "the row's", 0,
              true, 1e7, [o](double d) { o->system_price_usd_per_gpu = d; });
  NumberField(flags, "price_uncertainty_fraction", "F", "relative uncertainty of the prices, in [0, 1] (0.2: +-20%)",
              "the row's", 0, true, 1, [o](double d) { o->price_uncertainty_fraction = d; });
}

void ApplyOwningFlags(const OwningFlags& o, v1::Gpu* g) {
  if (o.system_power_watts_per_gpu) g->set_system_power_watts_per_gpu(*o.system_power_watts_per_gpu);
  if (o.idle_power_fraction) g->set_idle_power_fraction(*o.idle_power_fraction);
  if (o.system_price_usd_per_gpu) g->set_system_price_usd_per_gpu(*o.system_price_usd_per_gpu);
  if (o.price_uncertainty_fraction) g->set_price_uncertainty_fraction(*o.price_uncertainty_fraction);
}

}  // namespace

int UpsertInstance(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::UpsertInstanceTypeRequest r;
  v1::InstanceType* i = r.mutable_instance();
  RowSourceFlags source;
  auto text = [&flags](const char* name, const char* value_name, const char* help, auto set) {
    flags.Custom(name, value_name, help, "", [set](const std::string& v) { return set(v), absl::OkStatus(); });
  };
  text("provider", "NAME", "cloud provider, e.g. aws", [i](const std::string& v) { i->set_provider(v); });
  text("instance_type", "TYPE", "instance type, e.g. p5.48xlarge",
       [i](const std::string& v) { i->set_instance_type(v); });
  text("region", "REGION", "region, e.g. us-east-1", [i](const std::string& v) { i->set_region(v); });
  text("gpu", "NAME", "catalog GPU name (capplan catalog gpus)", [i](const std::string& v) { i->set_gpu_name(v); });
  IntField(&flags, "gpu_count", "GPUs per instance", "", 1, 64,
           [i](int64_t n) { i->set_gpu_count(static_cast<int32_t>(n)); });
  IntField(&flags, "vcpus", "vCPUs per instance", "0", 0, 4096,
           [i](int64_t n) { i->set_vcpus(static_cast<int32_t>(n)); });
  NumberField(&flags, "memory_gib", "GiB", "host memory per instance, in GiB (2^30 bytes)", "0", 0, true, 32768,
              [i](double d) { i->set_memory_bytes(static_cast<int64_t>(d * 1073741824.0)); });
  text("fabric", "NAME", "catalog fabric name (capplan catalog fabrics); empty: the GPU's default",
       [i](const std::string& v) { i->set_fabric_name(v); });
  AddRowSourceFlags(&flags, &source);
  const int rc = ParseCommandFlags(kUpsertInstance, args, &flags, global);
  if (rc >= 0) return rc;
  SetSource(source, r.mutable_source());
  r.set_request_id(source.request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::UpsertInstanceTypeRequest& q) { return c.UpsertInstanceType(q); },
      absl::StrCat("instance ", i->provider(), " ", i->instance_type(), " in ", i->region(), " written"));
}

int UpsertGpu(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  std::string name, file, fabric, request_id;
  bool fabric_given = false;
  flags.String("name", "NAME", "the GPU's catalog name, e.g. A10G", &name);
  flags.String("file", "PATH", "a Gpu in protobuf JSON to write (default: the catalog's current row for --name)",
               &file);
  flags.Custom("fabric", "NAME", "its default fabric for owned pools (capplan catalog fabrics); empty clears it", "",
               [&](const std::string& v) { return fabric = v, fabric_given = true, absl::OkStatus(); });
  flags.String("request_id", "ID", "idempotency key (default: random)", &request_id);
  OwningFlags owning;
  AddOwningFlags(&flags, &owning);
  const int rc = ParseCommandFlags(kUpsertGpu, args, &flags, global);
  if (rc >= 0) return rc;
  if (name.empty()) return UsageError(kUpsertGpu.path, "--name is required");
  v1::UpsertGpuRequest r;
  if (!file.empty()) {
    absl::StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) return UsageError(kUpsertGpu.path, absl::StrCat("--file: ", text.status().message()));
    auto parsed = google::protobuf::util::JsonStringToMessage(*text, r.mutable_gpu());
    if (!parsed.ok()) return UsageError(kUpsertGpu.path, absl::StrCat("--file: not a Gpu: ", parsed.ToString()));
  } else {
    client::Client reader(global->client);
    absl::StatusOr<v1::ListGpusResponse> gpus = reader.ListGpus();
    if (!gpus.ok()) return Fail(gpus.status());
    for (const v1::Gpu& g : gpus->gpus()) {
      if (g.name() == name) *r.mutable_gpu() = g;
    }
    if (r.gpu().name().empty()) return Fail(absl::NotFoundError(absl::StrCat("no GPU named \"", name, "\"")));
  }
  r.mutable_gpu()->set_name(name);
  if (fabric_given) r.mutable_gpu()->set_default_fabric_name(fabric);
  ApplyOwningFlags(owning, r.mutable_gpu());
  r.set_request_id(request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::UpsertGpuRequest& q) { return c.UpsertGpu(q); },
      "GPU " + name + " written");
}

namespace {

void AddBenchmarkSetupFlags(FlagSet* flags, v1::Benchmark* b) {
  const std::pair<const char*, void (v1::Benchmark::*)(int32_t)> degrees[] = {
      {"tensor_parallel", &v1::Benchmark::set_tensor_parallel},
      {"pipeline_parallel", &v1::Benchmark::set_pipeline_parallel},
      {"data_parallel", &v1::Benchmark::set_data_parallel},
      {"context_parallel", &v1::Benchmark::set_context_parallel},
      {"expert_parallel", &v1::Benchmark::set_expert_parallel},
      {"virtual_pipeline_stages", &v1::Benchmark::set_virtual_pipeline_stages}};
  for (const auto& [name, set] : degrees) {
    IntField(flags, name, "the run's published degree (0: not published)", "0", 0, 65536,
             [b, set = set](int64_t n) { (b->*set)(static_cast<int32_t>(n)); });
  }
  EnumField<v1::BenchmarkFigure>(
      flags, "figure", "steady_state|end_to_end", "what the value measures: throughput while training, or a whole run",
      "steady_state", "BENCHMARK_FIGURE_", v1::BenchmarkFigure_Parse, [b](v1::BenchmarkFigure f) { b->set_figure(f); });
  flags->Custom("fabric", "NAME", "the run's cluster fabric (capplan catalog fabrics); empty: the GPU's default", "",
                [b](const std::string& v) { return b->set_fabric_name(v), absl::OkStatus(); });
}

}  // namespace

int RecordBenchmark(const std::vector<std::string>& args, GlobalOptions* global) {
  FlagSet flags;
  v1::RecordBenchmarkRequest r;
  v1::Benchmark* b = r.mutable_benchmark();
  RowSourceFlags source;
  flags.Custom("gpu", "NAME", "catalog GPU name", "",
               [b](const std::string& v) { return b->set_gpu_name(v), absl::OkStatus(); });
  flags.Custom("model", "NAME", "catalog model name", "",
               [b](const std::string& v) { return b->set_model_name(v), absl::OkStatus(); });
  EnumField<v1::WorkloadKind>(&flags, "workload", "training|fine_tuning|serving", "what was measured", "",
                              "WORKLOAD_KIND_", v1::WorkloadKind_Parse,
                              [b](v1::WorkloadKind w) { b->set_workload(w); });
  EnumField<v1::Precision>(&flags, "precision", "fp32|tf32|fp16|bf16|fp8|int8|int4", "the run's precision", "",
                           "PRECISION_", v1::Precision_Parse, [b](v1::Precision p) { b->set_precision(p); });
  IntField(&flags, "gpu_count", "GPUs in the run", "1", 1, 65536,
           [b](int64_t n) { b->set_gpu_count(static_cast<int32_t>(n)); });
  b->set_gpu_count(1);
  IntField(&flags, "batch_size", "global batch in sequences (needed for seconds_per_step)", "0", 0, 1 << 24,
           [b](int64_t n) { b->set_batch_size(n); });
  IntField(&flags, "sequence_tokens", "training sequence, or serving prompt tokens", "0", 0, 1 << 24,
           [b](int64_t n) { b->set_sequence_tokens(n); });
  IntField(&flags, "output_tokens", "serving output tokens", "0", 0, 1 << 24,
           [b](int64_t n) { b->set_output_tokens(n); });
  NumberField(&flags, "value", "X", "the measured figure, in --unit", "", 0, false, 1e12,
              [b](double d) { b->set_measured_value(d); });
  flags.Custom("unit", "requests_per_second|tokens_per_second|seconds_per_step",
               "the measured unit (tokens/s: cluster-wide)", "",
               [b](const std::string& v) { return b->set_measured_unit(v), absl::OkStatus(); });
  AddBenchmarkSetupFlags(&flags, b);
  AddRowSourceFlags(&flags, &source);
  const int rc = ParseCommandFlags(kRecordBenchmark, args, &flags, global);
  if (rc >= 0) return rc;
  SetSource(source, b->mutable_source());
  r.set_request_id(source.request_id);
  return Send(
      *global, r, [](client::Client& c, const v1::RecordBenchmarkRequest& q) { return c.RecordBenchmark(q); },
      "benchmark recorded");
}

}  // namespace capplan::cli
