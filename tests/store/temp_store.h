// Test support: a catalog store on a fresh database in its own temporary directory.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "server/store/catalog_store.h"

namespace capplan::store {

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
