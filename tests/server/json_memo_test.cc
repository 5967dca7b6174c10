// The HTTP gateway's memo of printed answers: exact by type and bytes, and bounded.
#include "server/http/json_memo.h"

#include <string>

#include "gtest/gtest.h"

namespace capplan::server::http {
namespace {

constexpr char kPlan[] = "type.googleapis.com/capplan.v1.PlanResponse";
constexpr char kTco[] = "type.googleapis.com/capplan.v1.TcoResponse";

TEST(JsonMemoTest, AHitNeedsTheSameTypeAndTheSameBytes) {
  JsonMemo memo(8, 1024);
  memo.Insert(kPlan, "\x08\x01", R"({"a":1})");
  std::string json;
  ASSERT_TRUE(memo.Find(kPlan, "\x08\x01", &json));
  EXPECT_EQ(json, R"({"a":1})");
  // The same bytes mean something else as another message type.
  EXPECT_FALSE(memo.Find(kTco, "\x08\x01", &json));
  // One byte more is another answer.
  EXPECT_FALSE(memo.Find(kPlan, std::string("\x08\x01\x00", 3), &json));
}

TEST(JsonMemoTest, StaysWithinItsBounds) {
  JsonMemo memo(4, 16);
  for (int i = 0; i < 10; ++i) memo.Insert(kPlan, std::string(1, static_cast<char>('a' + i)), "{}");
  EXPECT_LE(memo.size(), 4u);
  // Answers larger than the bound are printed every time, never stored.
  memo.Insert(kPlan, std::string(17, 'x'), "{}");
  std::string json;
  EXPECT_FALSE(memo.Find(kPlan, std::string(17, 'x'), &json));
  JsonMemo off(0, 16);
  off.Insert(kPlan, "a", "{}");
  EXPECT_EQ(off.size(), 0u);
}

}  // namespace
}  // namespace capplan::server::http
