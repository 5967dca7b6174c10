// TcoFleetFrom's defaults over a small in-memory catalog: the owning rows (system power and
// price per GPU, idle share, the region's tariff) and every rent kind's price are used when
// present and recorded with their source; without them, today's TDP and list-price rules.
#include <gtest/gtest.h>

#include <map>

#include "core/tco/tco_finance.h"
#include "server/api/tco_request.h"
#include "tests/core/fixtures.h"

namespace capplan::server {
namespace {

namespace v1 = capplan::v1;

class OwningCatalog final : public core::CatalogView {
 public:
  OwningCatalog() {
    core::GpuRow h100;
    h100.spec = core::testing::H100_SXM();
    // NVIDIA DGX H100 datasheet: 10.2 kW max for 8 GPUs = 1,275 W a GPU. The idle share,
    // the system price and its uncertainty are assumptions for the test, not quotes.
    h100.system_power_watts_per_gpu = 10200.0 / 8;
    h100.idle_power_fraction = 0.3;
    h100.system_price_usd_per_gpu = 37500;
    h100.price_uncertainty_fraction = 0.2;
    h100.source = {"test system row", "2024-01-01", ""};
    gpus_.push_back(h100);
    core::GpuRow bare;
    bare.spec = core::testing::H100_SXM();
    bare.spec.name = "H100-bare";  // no owning rows: TDP 700 W; an assumed $30,000 list price
    bare.list_price_usd = 30000;
    gpus_.push_back(bare);
    core::InstanceRow p5;
    p5.provider = "aws";
    p5.instance_type = "p5.48xlarge";
    p5.region = "us-east-1";
    p5.gpu_name = "H100-SXM5-80GB";
    p5.gpu_count = 8;
    instances_.push_back(p5);
    // On-demand $98.32/h (AWS EC2 page, 2024, as shipped); the other kinds are assumed.
    const double usd_per_hour[] = {98.32, 40.0, 68.8, 47.2};
    for (int k = 0; k < core::kNumPriceKinds; ++k) {
      core::PriceRow p;
      p.id = k + 1;
      p.kind = static_cast<core::PriceKind>(k);
      p.price_usd_per_hour = usd_per_hour[k];
      prices_.push_back(p);
    }
    tariff_ = {"us-east-1", 0.09, {"test tariff row", "2024-01-01", ""}};  // an assumed tariff
  }
  int64_t Version() const override { return 1; }
  const std::vector<core::InstanceRow>& Instances() const override { return instances_; }
  const core::GpuRow* FindGpu(absl::string_view name) const override {
    for (const core::GpuRow& g : gpus_) {
      if (g.spec.name == name) return &g;
    }
    return nullptr;
  }
  const core::ModelRow* FindModel(absl::string_view) const override { return nullptr; }
  const core::FabricRow* FindFabric(absl::string_view) const override { return nullptr; }
  const core::ElectricityRow* FindElectricity(absl::string_view region) const override {
    return region == tariff_.region ? &tariff_ : nullptr;
  }
  const core::PriceRow* PriceAt(const core::InstanceRow&, core::PriceKind kind, int64_t) const override {
    return &prices_[static_cast<size_t>(kind)];
  }
  const std::vector<core::TrainingBenchmark>& TrainingBenchmarks() const override { return training_; }
  const std::vector<core::ServingBenchmark>& ServingBenchmarks() const override { return serving_; }

 private:
  std::vector<core::GpuRow> gpus_;
  std::vector<core::InstanceRow> instances_;
  std::vector<core::PriceRow> prices_;
  core::ElectricityRow tariff_;
  std::vector<core::TrainingBenchmark> training_;
  std::vector<core::ServingBenchmark> serving_;
};

v1::TcoFleet Fleet(const std::string& gpu) {
  v1::TcoFleet f;
  f.set_gpu_name(gpu);
  f.set_gpu_count(64);
  f.mutable_rent()->set_instance_type("p5.48xlarge");
  f.mutable_rent()->set_region("us-east-1");
  return f;
}

std::map<std::string, v1::TcoAssumption> ByField(const std::vector<v1::TcoAssumption>& as) {
  std::map<std::string, v1::TcoAssumption> out;
  for (const v1::TcoAssumption& a : as) out[a.field()] = a;
  return out;
}

TEST(TcoDefaultsTest, CatalogOwningRowsAreUsedAndCited) {
  OwningCatalog catalog;
  v1::Provenance prov;
  std::vector<v1::TcoAssumption> assumptions;
  absl::StatusOr<core::TcoFleet> f =
      TcoFleetFrom(catalog, Fleet("H100-SXM5-80GB"), 0, "fleets[0]", &prov, &assumptions);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->power_watts, 1275 * 64);  // 81.6 kW: eight DGX-class systems
  EXPECT_DOUBLE_EQ(f->idle_power_fraction, 0.3);
  EXPECT_DOUBLE_EQ(f->electricity_usd_per_kwh, 0.09);
  EXPECT_DOUBLE_EQ(f->capex_usd, 37500 * 64);
  ASSERT_FALSE(f->capex_items.empty());
  EXPECT_EQ(f->capex_items[0].name, "system (GPUs+host)");
  EXPECT_NE(f->capex_items[0].source.find("+-20%"), std::string::npos) << f->capex_items[0].source;
  // Each kind's price per GPU-hour: the instance's hourly price / 8.
  EXPECT_DOUBLE_EQ(f->rent_usd_per_gpu_hour, 98.32 / 8);
  EXPECT_DOUBLE_EQ(f->rent_kinds.on_demand_usd_per_gpu_hour, 98.32 / 8);
  EXPECT_DOUBLE_EQ(f->rent_kinds.spot_usd_per_gpu_hour, 40.0 / 8);
  EXPECT_DOUBLE_EQ(f->rent_kinds.reserved_1y_usd_per_gpu_hour, 68.8 / 8);
  EXPECT_DOUBLE_EQ(f->rent_kinds.reserved_3y_usd_per_gpu_hour, 47.2 / 8);
  const auto a = ByField(assumptions);
  for (const char* field :
       {"own.power_watts", "own.idle_power_fraction", "own.electricity_usd_per_kwh", "own.capex_usd",
        "rent.spot_usd_per_gpu_hour", "rent.reserved_3y_usd_per_gpu_hour", "rent.spot_overhead_fraction"}) {
    ASSERT_EQ(a.count(field), 1u) << field;
    EXPECT_FALSE(a.at(field).source().empty()) << field;
  }
  EXPECT_NE(a.at("own.power_watts").source().find("test system row"), std::string::npos);
  EXPECT_NE(a.at("own.electricity_usd_per_kwh").source().find("test tariff row"), std::string::npos);
}

TEST(TcoDefaultsTest, SpotHeadlinePaysTheSpotOverhead) {
  // Renting at the spot row ($40/h for 8 GPUs, an assumed test price) pays the spot overhead
  // on every used hour, as the spot rent option does: the caller's 10%, else the default.
  OwningCatalog catalog;
  v1::TcoFleet in = Fleet("H100-SXM5-80GB");
  in.mutable_rent()->set_price_kind(v1::PRICE_KIND_SPOT);
  v1::Provenance prov;
  std::vector<v1::TcoAssumption> assumptions;
  absl::StatusOr<core::TcoFleet> f = TcoFleetFrom(catalog, in, 0, "fleets[0]", &prov, &assumptions);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->rent_usd_per_gpu_hour, 40.0 / 8);
  EXPECT_DOUBLE_EQ(f->rent_use_overhead_fraction, core::kDefaultSpotOverheadFraction);
  in.mutable_rent()->set_spot_overhead_fraction(0.1);
  f = TcoFleetFrom(catalog, in, 0, "fleets[0]", &prov, &assumptions);
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ(f->rent_use_overhead_fraction, 0.1);
  // The headline NPV and the spot option's NPV are then the same stream.
  absl::StatusOr<core::TcoResult> r = core::ComputeTco({*f}, 36, [] {
    core::TcoFinance fin;
    fin.discount_rate_fraction_per_year = 0.08;
    fin.sensitivity = false;
    return fin;
  }());
  ASSERT_TRUE(r.ok()) << r.status();
  bool seen = false;
  for (const core::RentOption& o : r->rent_options) {
    if (o.kind != "spot") continue;
    seen = true;
    EXPECT_NEAR(r->npv_rent_usd, o.npv_usd, 1e-6 * o.npv_usd);
  }
  EXPECT_TRUE(seen);
  // On demand: no overhead.
  in.mutable_rent()->set_price_kind(v1::PRICE_KIND_ON_DEMAND);
  f = TcoFleetFrom(catalog, in, 0, "fleets[0]", &prov, &assumptions);
  ASSERT_TRUE(f.ok());
  EXPECT_DOUBLE_EQ(f->rent_use_overhead_fraction, 0);
}

TEST(TcoDefaultsTest, WithoutOwningRowsTodaysRulesApply) {
  OwningCatalog catalog;
  v1::TcoFleet in = Fleet("H100-bare");
  in.mutable_rent()->clear_instance_type();
  in.mutable_rent()->set_region("eu-west-9");  // no tariff row
  in.mutable_rent()->set_price_usd_per_month(100000);
  v1::Provenance prov;
  std::vector<v1::TcoAssumption> assumptions;
  absl::StatusOr<core::TcoFleet> f = TcoFleetFrom(catalog, in, 0, "fleets[0]", &prov, &assumptions);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->power_watts, 700 * 64);  // H100 SXM TDP 700 W (NVIDIA datasheet)
  EXPECT_DOUBLE_EQ(f->idle_power_fraction, 0);
  EXPECT_DOUBLE_EQ(f->electricity_usd_per_kwh, core::kDefaultElectricityUsdPerKwh);
  EXPECT_DOUBLE_EQ(f->capex_usd, 30000 * 64);
  EXPECT_EQ(f->capex_items[0].name, "GPUs");
  // The parts the catalog cannot price are shown as 0 and say so.
  double others = 0;
  for (size_t i = 1; i < f->capex_items.size(); ++i) {
    others += f->capex_items[i].usd;
    EXPECT_NE(f->capex_items[i].source.find("not included"), std::string::npos);
  }
  EXPECT_EQ(others, 0);
  EXPECT_NE(ByField(assumptions).at("own.power_watts").source().find("TDP"), std::string::npos);
}

}  // namespace
}  // namespace capplan::server
