// Documentation that must follow the code: every registered assumption (core/assumptions.h)
// has its row in docs/estimator.md, so a reader of the docs sees every number that decides an
// answer.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/assumptions.h"

namespace capplan::core {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DocsSyncTest, EstimatorDocListsEveryRegisteredAssumption) {
  const std::string doc = ReadFile(CAPPLAN_SOURCE_DIR "/docs/estimator.md");
  ASSERT_FALSE(doc.empty());
  for (const Assumption* a : AllAssumptions()) {
    EXPECT_NE(doc.find(std::string("`") + a->id + "`"), std::string::npos)
        << a->id << " is registered but docs/estimator.md has no row for it";
  }
}

}  // namespace
}  // namespace capplan::core
