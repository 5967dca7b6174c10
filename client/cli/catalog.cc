// capplan catalog version|gpus|models|instances|prices|benchmarks|fabrics|electricity: catalog
// reads, one table each (JSON with --json).
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "client/cli/commands.h"

namespace capplan::cli {
namespace {

struct CatalogFlags {
  std::string provider, region, gpu, model, instance_type;
  int64_t prices_as_of = 0;
};

CommandInfo Info(const std::string& what, const std::string& summary, const std::string& usage,
                 const std::string& example) {
  return {"catalog " + what, summary, usage, "  capplan catalog " + what + example};
}

int Version(client::Client& c, bool json) {
  auto r = c.GetCatalogVersion();
  if (!r.ok()) return Fail(r.status());
  if (json) {
    PrintJson(*r);
    return 0;
  }
  std::cout << "catalog version " << r->catalog_version() << " (schema " << r->schema_version() << ", loaded "
            << absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixSeconds(r->loaded_unix_seconds()),
                                absl::UTCTimeZone())
            << ")\n";
  return 0;
}

int Gpus(client::Client& c, bool json) {
  auto r = c.ListGpus();
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  // Memory in GiB, the unit datasheets' "80 GB" means; bandwidths in 1e9 bytes/s.
  Table t({"gpu", "memory GiB", "GB/s", "bf16 TFLOPS", "TDP W", "link GB/s", "datacenter", "source"});
  for (const v1::Gpu& g : r->gpus()) {
    double bf16 = 0;
    for (const auto& th : g.throughput()) {
      if (th.precision() == v1::PRECISION_BF16) bf16 = th.dense_tflops();
    }
    t.Add({g.name(), absl::StrFormat("%.1f", static_cast<double>(g.memory_bytes()) / (1 << 30)),
           absl::StrFormat("%.0f", g.memory_bandwidth_bytes_per_second() / 1e9), absl::StrFormat("%.1f", bf16),
           absl::StrFormat("%.0f", g.tdp_watts()),
           absl::StrFormat("%.0f", g.interconnect_bandwidth_bytes_per_second() / 1e9), g.datacenter() ? "yes" : "no",
           g.source().citation()});
  }
  t.Print();
  return 0;
}

int Models(client::Client& c, bool json) {
  auto r = c.ListModels();
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"model", "layers", "hidden", "heads", "kv heads", "experts", "context"});
  for (const v1::ModelArchitecture& m : r->models()) {
    t.Add({m.name(), absl::StrCat(m.num_layers()), absl::StrCat(m.hidden_size()), absl::StrCat(m.num_attention_heads()),
           absl::StrCat(m.num_kv_heads()), absl::StrCat(m.num_experts()), absl::StrCat(m.max_context_tokens())});
  }
  t.Print();
  return 0;
}

std::string Kind(v1::PriceKind k) { return EnumLabel(v1::PriceKind_Name(k), "PRICE_KIND_"); }

int Instances(client::Client& c, const CatalogFlags& f, bool json) {
  v1::ListInstancesRequest req;
  req.set_provider(f.provider);
  req.set_region(f.region);
  req.set_gpu_name(f.gpu);
  req.set_prices_as_of_unix_seconds(f.prices_as_of);
  auto r = c.ListInstances(req);
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"provider", "instance", "region", "GPUs", "$/h", "kind", "effective", "source"});
  for (const v1::InstanceOffer& o : r->offers()) {
    for (const v1::Price& p : o.current_prices()) {
      t.Add({o.instance().provider(), o.instance().instance_type(), o.instance().region(),
             absl::StrCat(o.instance().gpu_count(), "x", o.instance().gpu_name()),
             absl::StrFormat("%.10g", p.price_usd_per_hour()), Kind(p.kind()), IsoDate(p.effective_unix_seconds()),
             absl::StrCat(p.source().citation(), " (", p.source().as_of_date(), ")")});
    }
  }
  t.Print();
  return 0;
}

int Prices(client::Client& c, const CatalogFlags& f, bool json) {
  v1::ListPriceHistoryRequest req;
  req.set_provider(f.provider);
  req.set_instance_type(f.instance_type);
  req.set_region(f.region);
  auto r = c.ListPriceHistory(req);
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"id", "kind", "$/h", "effective", "source"});
  for (const v1::Price& p : r->prices()) {
    t.Add({absl::StrCat(p.id()), Kind(p.kind()), absl::StrFormat("%.10g", p.price_usd_per_hour()),
           IsoDate(p.effective_unix_seconds()),
           absl::StrCat(p.source().citation(), " (", p.source().as_of_date(), ")")});
  }
  t.Print();
  return 0;
}

int Benchmarks(client::Client& c, const CatalogFlags& f, bool json) {
  v1::ListBenchmarksRequest req;
  req.set_gpu_name(f.gpu);
  req.set_model_name(f.model);
  auto r = c.ListBenchmarks(req);
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"id", "gpu", "model", "workload", "GPUs", "value", "unit", "source"});
  for (const v1::Benchmark& b : r->benchmarks()) {
    t.Add({absl::StrCat(b.id()), b.gpu_name(), b.model_name(),
           EnumLabel(v1::WorkloadKind_Name(b.workload()), "WORKLOAD_KIND_"), absl::StrCat(b.gpu_count()),
           absl::StrFormat("%.4g", b.measured_value()), b.measured_unit(), b.source().citation()});
  }
  t.Print();
  return 0;
}

int Fabrics(client::Client& c, bool json) {
  auto r = c.ListFabrics();
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"fabric", "GPUs/node", "link", "link GB/s/GPU", "network", "net Gbit/s/node", "latency us", "source"});
  for (const v1::Fabric& f : r->fabrics()) {
    // Stored per GPU and one direction; a node's NIC figure is what vendors print.
    const double node_gbit = f.network_bytes_per_second_per_gpu() * 8 * f.gpus_per_node() / 1e9;
    t.Add({f.name(), absl::StrCat(f.gpus_per_node()),
           EnumLabel(v1::InterconnectKind_Name(f.intra_link()), "INTERCONNECT_KIND_"),
           absl::StrFormat("%.4g", f.intra_node_bytes_per_second_per_gpu() / 1e9),
           EnumLabel(v1::NetworkKind_Name(f.network()), "NETWORK_KIND_"), absl::StrFormat("%.4g", node_gbit),
           absl::StrFormat("%.3g", f.network_latency_seconds() * 1e6),
           absl::StrCat(f.source().citation(), " (", f.source().as_of_date(), ")")});
  }
  t.Print();
  return 0;
}

int Electricity(client::Client& c, bool json) {
  auto r = c.ListElectricityPrices();
  if (!r.ok()) return Fail(r.status());
  if (json) return PrintJson(*r), 0;
  Table t({"region", "$/kWh", "source"});
  for (const v1::ElectricityPrice& e : r->prices()) {
    t.Add({e.region(), absl::StrFormat("%.4f", e.usd_per_kwh()),
           absl::StrCat(e.source().citation(), " (", e.source().as_of_date(), ")")});
  }
  t.Print();
  return 0;
}

// The flags and help of each read; false for an unknown one.
bool Describe(const std::string& what, FlagSet* flags, CatalogFlags* f, CommandInfo* info) {
  if (what == "fabrics") {
    *info = Info(what, "how each offer's and owned pool's GPUs are connected (per GPU, one direction)", "", "");
    return true;
  }
  if (what == "electricity") {
    *info = Info(what, "the price of electricity by region, for owning (capplan tco)", "", "");
    return true;
  }
  if (what == "version" || what == "gpus" || what == "models") {
    *info = Info(what, "the catalog's " + what, "", "");
    return true;
  }
  if (what == "instances") {
    flags->String("provider", "NAME", "only this cloud provider, e.g. aws", &f->provider);
    flags->String("region", "REGION", "only this region, e.g. us-east-1", &f->region);
    flags->String("gpu", "NAME", "only instances with this GPU type", &f->gpu);
    IsoTimeFlag(flags, "prices_as_of", "show the prices current at this UTC date or time",
                [f](int64_t t) { f->prices_as_of = t; });
    *info = Info(what, "instance offers with their current prices", "[flags]", " --provider=aws --gpu=H100-SXM5-80GB");
    return true;
  }
  if (what == "prices") {
    flags->String("provider", "NAME", "cloud provider, e.g. aws", &f->provider);
    flags->String("instance_type", "TYPE", "instance type, e.g. p5.48xlarge", &f->instance_type);
    flags->String("region", "REGION", "region, e.g. us-east-1", &f->region);
    *info = Info(what, "an instance's price history, oldest first", "[flags]",
                 " --provider=aws --instance_type=p5.48xlarge --region=us-east-1");
    return true;
  }
  if (what == "benchmarks") {
    flags->String("gpu", "NAME", "only this GPU type", &f->gpu);
    flags->String("model", "NAME", "only this model", &f->model);
    *info = Info(what, "measured benchmarks the estimator calibrates on", "[flags]", " --gpu=A100-SXM4-80GB");
    return true;
  }
  return false;
}

}  // namespace

int RunCatalog(const std::vector<std::string>& args, GlobalOptions* global) {
  const std::string what = args.empty() ? "" : args[0];
  if (what == "tco-scenarios") return ListTcoScenarios({args.begin() + 1, args.end()}, global);
  FlagSet flags;
  CatalogFlags f;
  CommandInfo info;
  if (!Describe(what, &flags, &f, &info)) {
    return SubcommandUsage(
        "catalog",
        {"instances", "prices", "benchmarks", "fabrics", "electricity", "version", "gpus", "models", "tco-scenarios"},
        args);
  }
  const int rc = ParseCommandFlags(info, {args.begin() + 1, args.end()}, &flags, global);
  if (rc >= 0) return rc;
  client::Client c(global->client);
  const bool json = global->json;
  if (what == "version") return Version(c, json);
  if (what == "gpus") return Gpus(c, json);
  if (what == "models") return Models(c, json);
  if (what == "fabrics") return Fabrics(c, json);
  if (what == "electricity") return Electricity(c, json);
  if (what == "instances") return Instances(c, f, json);
  if (what == "prices") return Prices(c, f, json);
  return Benchmarks(c, f, json);
}

}  // namespace capplan::cli
