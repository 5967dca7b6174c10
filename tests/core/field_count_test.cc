// FieldCount, the guard that keeps the layout memo's keys complete: a member added into a
// struct's padding keeps its size but changes its count.
#include "core/field_count.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace capplan::core {
namespace {

struct Before {
  int32_t a = 0;
  int64_t b = 0;
};
struct AfterIntoPadding {
  int32_t a = 0;
  int32_t added = 0;  // fills the 4 bytes of padding after `a`
  int64_t b = 0;
};
struct Mixed {
  std::string name;
  std::array<double, 4> per_precision{};
  Before nested;
  bool flag = false;
};

TEST(FieldCountTest, AFieldAddedIntoPaddingKeepsTheSizeButNotTheCount) {
  static_assert(sizeof(Before) == sizeof(AfterIntoPadding));
  EXPECT_EQ(FieldCount<Before>(), 2u);
  EXPECT_EQ(FieldCount<AfterIntoPadding>(), 3u);
}

TEST(FieldCountTest, StringsArraysAndNestedStructsCountAsOneMember) { EXPECT_EQ(FieldCount<Mixed>(), 4u); }

}  // namespace
}  // namespace capplan::core
