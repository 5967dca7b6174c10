#include "server/rpc/auth.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"

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

// The reported leak: fields in the wrong order put the token in the role column, and the
// error quoted it. Every malformed line must be reported by position only.
TEST(TokenTableTest, ErrorsNeverQuoteAField) {
  const std::string token = "s3cr3t+0123456789/abcdef";  // base64-like
  const std::string lines[] = {
      "alice admin " + token,                 // token in the role column
      "admin " + token + " alice",            // token in the caller column
      token + " " + token + " admin",         // token in the caller column
      token + " alice " + token,              // role column
      token + "\x01 alice admin",             // control character in the token
      token + " al/ice admin",                // caller charset
      token + " alice admin extra-" + token,  // four fields
  };
  for (const std::string& line : lines) {
    absl::StatusOr<TokenTable> t = TokenTable::Parse("# header\n" + line + "\n");
    ASSERT_FALSE(t.ok()) << line;
    EXPECT_EQ(t.status().message().find("s3cr3t"), std::string::npos) << t.status();
    EXPECT_NE(t.status().message().find("line 2"), std::string::npos) << t.status();
  }
  absl::StatusOr<TokenTable> t = TokenTable::Parse(token + " alice " + token + "\n");
  EXPECT_EQ(t.status().message(), "admin token file line 1, field 3 (role): want admin or read");
}

TEST(TokenTableTest, BoundsTokenLengthCallerNameAndFile) {
  EXPECT_TRUE(TokenTable::Parse(std::string(256, 'a') + " alice admin").ok());
  EXPECT_FALSE(TokenTable::Parse(std::string(257, 'a') + " alice admin").ok());
  EXPECT_FALSE(TokenTable::Parse(std::string(15, 'a') + " alice admin").ok());
  const std::string token(20, 't');
  EXPECT_TRUE(TokenTable::Parse(token + " " + std::string(64, 'n') + " read").ok());
  EXPECT_FALSE(TokenTable::Parse(token + " " + std::string(65, 'n') + " read").ok());
  EXPECT_TRUE(TokenTable::Parse(token + " ops.bot-1_x@example.com read").ok());
  EXPECT_FALSE(TokenTable::Parse(token + " ops$bot read").ok());

  std::string many_lines(kMaxTokenFileLines + 1, '\n');
  EXPECT_FALSE(TokenTable::Parse(many_lines).ok());
  many_lines.pop_back();
  EXPECT_TRUE(TokenTable::Parse(many_lines).ok());
  const std::string big = "#" + std::string(kMaxTokenFileBytes, 'x');
  absl::StatusOr<TokenTable> t = TokenTable::Parse(big);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TokenTableTest, DuplicateTokensNameBothLinesOnly) {
  absl::StatusOr<TokenTable> t = TokenTable::Parse(
      "0123456789abcdef0123 alice admin\n"
      "fedcba9876543210fedc dashboard read\n"
      "0123456789abcdef0123 bob read\n");
  EXPECT_EQ(t.status().message(), "admin token file line 3, field 1 (token): same token as line 1");
}

TEST(TokenTableTest, OverlongPresentedTokenIsUnknown) {
  TokenTable t = *TokenTable::Parse(kFile);
  EXPECT_EQ(t.Authenticate("Bearer " + std::string(100000, 'a')).status().code(), absl::StatusCode::kUnauthenticated);
}

// A token file in a fresh directory, with `mode` set after writing.
class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capplan-auth-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    path_ = dir_ + "/tokens";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& content, mode_t mode) {
    std::ofstream(path_) << content;
    ASSERT_EQ(chmod(path_.c_str(), mode), 0);
  }
  std::string dir_;
  std::string path_;
};

TEST_F(TokenFileTest, OwnerOnlyModesLoad) {
  for (mode_t mode : {0600, 0400, 0700}) {
    Write(kFile, mode);
    absl::StatusOr<TokenTable> t = TokenTable::LoadFile(path_, TokenFileOptions{});
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->size(), 2u);
  }
}

TEST_F(TokenFileTest, RefusesModesOthersCanReadOrWriteNamingPathModeAndFix) {
  for (mode_t mode : {0644, 0640, 0604, 0620, 0602, 0666}) {
    Write(kFile, mode);
    absl::StatusOr<TokenTable> t = TokenTable::LoadFile(path_, TokenFileOptions{});
    ASSERT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition) << std::oct << mode;
    const std::string msg(t.status().message());
    EXPECT_NE(msg.find(path_), std::string::npos) << msg;
    EXPECT_NE(msg.find(absl::StrCat("mode 0", (mode >> 6) & 7, (mode >> 3) & 7, mode & 7)), std::string::npos) << msg;
    EXPECT_NE(msg.find("chmod 600 " + path_), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find("0123456789abcdef"), std::string::npos) << msg;
  }
}

TEST_F(TokenFileTest, GroupReadNeedsTheExplicitOptionAndNothingMore) {
  TokenFileOptions allow;
  allow.allow_group_read = true;
  Write(kFile, 0440);
  EXPECT_TRUE(TokenTable::LoadFile(path_, allow).ok());
  Write(kFile, 0640);
  EXPECT_TRUE(TokenTable::LoadFile(path_, allow).ok());
  for (mode_t mode : {0644, 0660, 0604}) {
    Write(kFile, mode);
    EXPECT_FALSE(TokenTable::LoadFile(path_, allow).ok()) << std::oct << mode;
  }
  // The one-argument form (what the server calls) reads the option from the environment.
  Write(kFile, 0440);
  unsetenv("CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ");
  EXPECT_FALSE(TokenTable::LoadFile(path_).ok());
  setenv("CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ", "1", 1);
  EXPECT_TRUE(TokenTable::LoadFile(path_).ok());
  unsetenv("CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ");
}

TEST_F(TokenFileTest, RefusesOversizedFilesAndDirectories) {
  Write(std::string(kMaxTokenFileBytes + 1, '#'), 0600);
  EXPECT_EQ(TokenTable::LoadFile(path_, TokenFileOptions{}).status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(chmod(dir_.c_str(), 0700), 0);
  EXPECT_FALSE(TokenTable::LoadFile(dir_, TokenFileOptions{}).ok());
}

TEST_F(TokenFileTest, ParseErrorsNameThePathAndLine) {
  Write("0123456789abcdef0123 alice root\n", 0600);
  absl::StatusOr<TokenTable> t = TokenTable::LoadFile(path_, TokenFileOptions{});
  EXPECT_EQ(t.status().message(), path_ + ": admin token file line 1, field 3 (role): want admin or read");
}

}  // namespace
}  // namespace capplan::server
