// The catalog converters (server/convert): every network and link kind has its own API value
// and a fabric row survives the round trip; an unset kind in a catalog row names its field.
#include <gtest/gtest.h>

#include <set>

#include "server/api/catalog_proto.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

TEST(ConvertCatalogTest, EveryNetworkKindHasItsOwnApiValueBothWays) {
  std::set<int> seen;
  for (int k = 0; k < core::kNumNetworkKinds; ++k) {
    const v1::NetworkKind p = NetworkKindToProto(static_cast<core::NetworkKind>(k));
    EXPECT_NE(p, v1::NETWORK_KIND_UNSPECIFIED) << k;
    EXPECT_TRUE(seen.insert(p).second) << k;
    EXPECT_EQ(static_cast<int>(*NetworkKindFromProto(p, "f")), k);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(v1::NetworkKind_descriptor()->value_count() - 1));
  EXPECT_FALSE(NetworkKindFromProto(v1::NETWORK_KIND_UNSPECIFIED, "f").ok());
}

TEST(ConvertCatalogTest, FabricRoundTripsAndAnUnsetKindNamesItsField) {
  // Microsoft Learn, ND H100 v5: 8 x H100 on NVSwitch (450 GB/s one direction per GPU), one
  // 400 Gb/s NDR InfiniBand link per GPU (migration 0004's latency figure, ~3 us).
  store::FabricRow row;
  row.name = "azure-nd-h100-v5-ndr";
  row.fabric = {8, core::Interconnect::kNvlink, 450e9, core::NetworkKind::kInfiniband, 50e9, 3e-6};
  row.source = {"Microsoft Learn, ND H100 v5 size series", "2026-12-01", ""};
  v1::Fabric p;
  FabricToProto(row, &p);
  EXPECT_EQ(p.intra_link(), v1::INTERCONNECT_KIND_NVLINK);
  EXPECT_EQ(p.network(), v1::NETWORK_KIND_INFINIBAND);
  absl::StatusOr<store::FabricRow> back = FabricFromProto(p);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->name, row.name);
  EXPECT_EQ(back->fabric.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(back->fabric.network_bytes_per_second_per_gpu, 50e9);
  EXPECT_EQ(back->source.citation, row.source.citation);
  p.clear_network();
  EXPECT_NE(FabricFromProto(p).status().message().find("fabric.network"), absl::string_view::npos);
  p.set_network(v1::NETWORK_KIND_INFINIBAND);
  p.clear_intra_link();
  EXPECT_NE(FabricFromProto(p).status().message().find("fabric.intra_link"), absl::string_view::npos);
}

TEST(ConvertCatalogTest, GpuOwningFiguresAndElectricityRoundTrip) {
  // NVIDIA DGX H100 datasheet: 10.2 kW for 8 GPUs; SemiAnalysis DGX H100 ~$270,000 (2023-05),
  // +-20%; the idle share is migration 0005's assumption.
  store::GpuRow row;
  row.spec.name = "H100-SXM5-80GB";
  row.system_power_watts_per_gpu = 10200.0 / 8;
  row.idle_power_fraction = 0.25;
  row.system_price_usd_per_gpu = 270000.0 / 8;
  row.price_uncertainty_fraction = 0.2;
  v1::Gpu p;
  GpuToProto(row, &p);
  EXPECT_DOUBLE_EQ(p.system_power_watts_per_gpu(), 1275);
  absl::StatusOr<store::GpuRow> back = GpuFromProto(p);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_DOUBLE_EQ(back->system_power_watts_per_gpu, 1275);
  EXPECT_DOUBLE_EQ(back->idle_power_fraction, 0.25);
  EXPECT_DOUBLE_EQ(back->system_price_usd_per_gpu, 33750);
  EXPECT_DOUBLE_EQ(back->price_uncertainty_fraction, 0.2);
  // EIA Electric Power Annual 2023: Virginia commercial 8.95 cents/kWh.
  store::ElectricityRow e{"us-east-1", 0.0895, {"EIA Electric Power Annual 2023", "2023-12-31", ""}};
  v1::ElectricityPrice ep;
  ElectricityToProto(e, &ep);
  const store::ElectricityRow e2 = ElectricityFromProto(ep);
  EXPECT_EQ(e2.region, "us-east-1");
  EXPECT_DOUBLE_EQ(e2.usd_per_kwh, 0.0895);
  EXPECT_EQ(e2.source.as_of_date, "2023-12-31");
}

TEST(ConvertCatalogTest, BenchmarkSetupAndFigureRoundTrip) {
  v1::Benchmark b;
  b.set_workload(v1::WORKLOAD_KIND_TRAINING);
  b.set_precision(v1::PRECISION_BF16);
  b.set_measured_unit("tokens_per_second");
  b.set_tensor_parallel(8);
  b.set_context_parallel(2);
  b.set_fabric_name("dgx-h100-ndr");
  absl::StatusOr<store::BenchmarkRow> row = BenchmarkFromProto(b);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->figure, core::BenchmarkFigure::kSteadyState);  // unset: steady state
  EXPECT_EQ(row->tensor_parallel, 8);
  row->figure = core::BenchmarkFigure::kEndToEnd;
  v1::Benchmark out;
  BenchmarkToProto(*row, &out);
  EXPECT_EQ(out.figure(), v1::BENCHMARK_FIGURE_END_TO_END);
  EXPECT_EQ(out.context_parallel(), 2);
  EXPECT_EQ(out.fabric_name(), "dgx-h100-ndr");
}

TEST(ConvertCatalogTest, ServingBenchmarkNamesItsEngine) {
  // Engines size the KV cache and batch prompts differently (issue 17): a serving figure
  // records the engine it was measured on; unset reads as vLLM, the default.
  v1::Benchmark b;
  b.set_workload(v1::WORKLOAD_KIND_SERVING);
  b.set_precision(v1::PRECISION_FP8);
  b.set_measured_unit("tokens_per_second");
  absl::StatusOr<store::BenchmarkRow> row = BenchmarkFromProto(b);
  ASSERT_TRUE(row.ok()) << row.status();
  EXPECT_EQ(row->engine, core::ServingEngine::kVllm);
  b.set_serving_engine(v1::SERVING_ENGINE_TENSORRT_LLM);
  row = BenchmarkFromProto(b);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->engine, core::ServingEngine::kTensorRtLlm);
  v1::Benchmark out;
  BenchmarkToProto(*row, &out);
  EXPECT_EQ(out.serving_engine(), v1::SERVING_ENGINE_TENSORRT_LLM);
  b.set_serving_engine(static_cast<v1::ServingEngine>(99));
  row = BenchmarkFromProto(b);
  EXPECT_EQ(row.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(row.status().message().find("benchmark.serving_engine"), std::string::npos) << row.status();
}

}  // namespace
}  // namespace capplan::server
