// A test suite over the shipped catalog: a real store on a temporary file, migrated once per
// suite; each test reads the snapshot current when it starts.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "capplan/v1/planner.pb.h"
#include "server/store/catalog_store.h"

namespace capplan::server::testing {

class ShippedCatalogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    char tmpl[] = "/tmp/capplan-shipped-catalog-XXXXXX";
    dir_ = new std::string(mkdtemp(tmpl));
    store_ = store::CatalogStore::Open({*dir_ + "/c.db"})->release();
  }
  static void TearDownTestSuite() {
    delete store_;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override { snapshot_ = store_->Snapshot(); }
  const store::CatalogSnapshot& snap() { return *snapshot_; }

  static inline std::string* dir_ = nullptr;
  static inline store::CatalogStore* store_ = nullptr;
  std::shared_ptr<const store::CatalogSnapshot> snapshot_;
};

// The user's own TCO template, seeds/000 section 3.2: own $250,000 up front + $5,000/month;
// cloud $15,000/month. Eight A100s, fully used; the $5,000 covers power, so no separate
// electricity. Owning breaks even in month 25.
inline capplan::v1::TcoRequest SeedTcoRequest() {
  capplan::v1::TcoRequest r;
  r.set_horizon_months(36);
  capplan::v1::TcoFleet* f = r.add_fleets();
  f->set_gpu_name("A100-SXM4-80GB");
  f->set_gpu_count(8);
  f->mutable_own()->set_capex_usd(250000);
  f->mutable_own()->set_ops_usd_per_month(5000);
  f->mutable_own()->set_power_watts(0);
  f->mutable_own()->set_electricity_usd_per_kwh(0);
  f->mutable_rent()->set_price_usd_per_month(15000);
  return r;
}

}  // namespace capplan::server::testing
