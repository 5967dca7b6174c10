// Test support: catalog stores on a throwaway PostgreSQL 15 cluster (tests/pg/pg_cluster.h).
// One cluster serves the whole binary; each test gets a fresh database of its own. Tests that
// stop the server start a cluster of their own (OwnCluster) so the others are not disturbed.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "temp_store.h"
#include "tests/pg/pg_cluster.h"

namespace capplan::store {

class PgStoreTest : public ::testing::Test {
 protected:
  // The binary's shared cluster, started on first use.
  static testing::PgCluster* SharedCluster() {
    static std::unique_ptr<testing::PgCluster> cluster = [] {
      absl::StatusOr<std::unique_ptr<testing::PgCluster>> c = testing::PgCluster::Start();
      EXPECT_TRUE(c.ok()) << c.status();
      return c.ok() ? std::move(*c) : nullptr;
    }();
    return cluster.get();
  }

  void SetUp() override {
    cluster_ = SharedCluster();
    ASSERT_NE(cluster_, nullptr);
  }

  // A new, empty database on `cluster` (the shared one by default); its DSN.
  std::string FreshDatabase(testing::PgCluster* cluster = nullptr) {
    static std::atomic<int> next{0};
    if (cluster == nullptr) cluster = cluster_;
    const std::string name = absl::StrCat("capplan_", ++next);
    absl::Status created = cluster->CreateDatabase(name);
    EXPECT_TRUE(created.ok()) << created;
    return cluster->Dsn(name);
  }

  // A store on `dsn`; listen=false and a short poll interval test the fallback alone.
  static std::unique_ptr<CatalogStore> OpenStore(const std::string& dsn, bool listen = true,
                                                 int poll_interval_ms = 2000) {
    DatabaseOptions options;
    options.path = dsn;
    options.listen_for_changes = listen;
    options.poll_interval_ms = poll_interval_ms;
    absl::StatusOr<std::unique_ptr<CatalogStore>> store = CatalogStore::Open(options);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  testing::PgCluster* cluster_ = nullptr;
};

}  // namespace capplan::store
