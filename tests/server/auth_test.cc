#include "server/auth.h"

#include <gtest/gtest.h>

namespace capplan::server {
namespace {

constexpr char kFile[] =
    "# ops tokens\n"
    "0123456789abcdef0123 alice admin\n"
    "\n"
    "fedcba9876543210fedc dashboard read\n";

TEST(TokenTableTest, MapsTokensToCallersAndRoles) {
  absl::StatusOr<TokenTable> t = TokenTable::Parse(kFile);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->size(), 2u);
  absl::StatusOr<Caller> alice = t->Authenticate("Bearer 0123456789abcdef0123");
  ASSERT_TRUE(alice.ok());
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->role, Role::kAdmin);
  absl::StatusOr<Caller> dash = t->Authenticate("Bearer fedcba9876543210fedc");
  ASSERT_TRUE(dash.ok());
  EXPECT_EQ(dash->role, Role::kRead);
}

TEST(TokenTableTest, RejectsUnknownPrefixAndMissingTokens) {
  TokenTable t = *TokenTable::Parse(kFile);
  EXPECT_EQ(t.Authenticate("").status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(t.Authenticate("0123456789abcdef0123").status().code(),
            absl::StatusCode::kUnauthenticated);  // no "Bearer "
  EXPECT_EQ(t.Authenticate("Bearer 0123456789abcdef012").status().code(),
            absl::StatusCode::kUnauthenticated);  // prefix of a real token
  EXPECT_EQ(t.Authenticate("Bearer 0123456789abcdef01234").status().code(),
            absl::StatusCode::kUnauthenticated);  // real token plus a character
}

TEST(TokenTableTest, RejectsMalformedLinesNamingTheLine) {
  absl::StatusOr<TokenTable> t = TokenTable::Parse("0123456789abcdef0123 bob superuser\n");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("line 1"), std::string::npos) << t.status();
  EXPECT_FALSE(TokenTable::Parse("short bob admin\n").ok());
  EXPECT_FALSE(TokenTable::Parse("0123456789abcdef0123 bob\n").ok());
}

TEST(TokenTableTest, MissingFileIsFailedPrecondition) {
  absl::StatusOr<TokenTable> t = TokenTable::LoadFile("/nonexistent/capplan/tokens");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace capplan::server
