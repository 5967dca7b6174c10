// The throwaway PostgreSQL cluster the replica tests run on: it starts, takes SQL, survives
// a stop and restart with its data, and an immediate (crash) stop loses no committed row.
#include "tests/pg/pg_cluster.h"

#include <gtest/gtest.h>

namespace capplan::testing {
namespace {

TEST(PgClusterTest, CommittedRowsSurviveFastAndImmediateStops) {
  absl::StatusOr<std::unique_ptr<PgCluster>> pg = PgCluster::Start();
  ASSERT_TRUE(pg.ok()) << pg.status();
  ASSERT_TRUE((*pg)->CreateDatabase("capplan").ok());
  ASSERT_TRUE((*pg)->Psql("capplan", "CREATE TABLE t (v BIGINT); INSERT INTO t VALUES (41), (1)").ok());
  ASSERT_TRUE((*pg)->Stop("fast").ok());
  EXPECT_FALSE((*pg)->Psql("capplan", "SELECT 1").ok()) << "a stopped cluster must refuse connections";
  ASSERT_TRUE((*pg)->Restart().ok()) << (*pg)->Log();
  ASSERT_TRUE((*pg)->Psql("capplan", "INSERT INTO t VALUES (0)").ok());
  ASSERT_TRUE((*pg)->Stop("immediate").ok());
  ASSERT_TRUE((*pg)->Restart().ok()) << (*pg)->Log();
  absl::StatusOr<std::string> sum = (*pg)->Psql("capplan", "SELECT sum(v) FROM t");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(*sum, "42\n");
  EXPECT_NE((*pg)->Dsn("capplan").find("host=" + (*pg)->socket_dir()), std::string::npos);
}

}  // namespace
}  // namespace capplan::testing
