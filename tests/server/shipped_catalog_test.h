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
#include "tests/own_or_rent_tco_request.h"

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

using capplan::testdata::ReadmeOwnOrRentRequest;

}  // namespace capplan::server::testing
