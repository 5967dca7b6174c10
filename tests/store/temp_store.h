// Test support: a catalog store on a fresh database in its own temporary directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "server/store/catalog_store.h"

namespace capplan::store {

// An on-demand price for aws p5.48xlarge in us-east-1, a shipped offer.
inline PriceRow P5Price(double usd, int64_t effective_unix_seconds) {
  PriceRow p;
  p.provider = "aws";
  p.instance_type = "p5.48xlarge";
  p.region = "us-east-1";
  p.kind = PriceKind::kOnDemand;
  p.price_usd_per_hour = usd;
  p.effective_unix_seconds = effective_unix_seconds;
  p.source = {"ops ticket 42", "2025-06-05", ""};
  return p;
}

class TempStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-store-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    absl::StatusOr<std::unique_ptr<CatalogStore>> s = CatalogStore::Open({dir_ + "/c.db"});
    ASSERT_TRUE(s.ok()) << s.status();
    store_ = std::move(*s);
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<CatalogStore> store_;
};

}  // namespace capplan::store
