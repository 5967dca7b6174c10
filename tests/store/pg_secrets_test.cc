// The catalog DSN's password never shows: a password with `/`, `@`, `?` or a stray `%` that
// libpq would misread as the port, host or database is refused at start-up with a hint and
// without any of it; a percent-encoded one works, and neither its encoded nor its decoded form
// appears in the DSN as shown, in connection errors or in the log. The database going down
// and coming back is logged, one line each.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "pg_store_fixture.h"
#include "server/store/database.h"
#include "server/store/pg_dsn.h"

namespace capplan::store {
namespace {

// The pieces of `password` a misread DSN would show (split at the characters libpq ends the
// port, host or database at), those of 3 characters or more.
std::vector<std::string> Fragments(const std::string& password) {
  std::vector<std::string> out;
  for (absl::string_view piece : absl::StrSplit(password, absl::ByAnyChar("/@:?#%"))) {
    if (piece.size() >= 3) out.emplace_back(piece);
  }
  return out;
}

void ExpectNoneOf(const std::string& text, const std::vector<std::string>& secrets) {
  for (const std::string& s : secrets) EXPECT_FALSE(absl::StrContains(text, s)) << "\"" << s << "\" in: " << text;
}

TEST(PgDsnSecretsTest, PasswordsLibpqWouldMisreadAreRefusedWithoutShowingAnyOfThem) {
  // base64 passwords, as `head -c 18 /dev/urandom | base64` makes them, and others with the
  // URI's reserved characters left unencoded.
  for (const std::string password : {"kq3ZtR/v8pWnXa+c2LmD4Hse", "913/xYzQwerty+AbCd", "ab@cdefgh", "Zq%zzXv9w"}) {
    const std::string dsn =
        absl::StrCat("postgresql://capplan:", password, "@db.example:5432/capplan?connect_timeout=5");
    absl::Status checked = CheckDsn(dsn);
    EXPECT_EQ(checked.code(), absl::StatusCode::kInvalidArgument) << password << ": " << checked;
    EXPECT_TRUE(absl::StrContains(checked.message(), "percent-encode")) << checked;
    ExpectNoneOf(std::string(checked.message()), Fragments(password));
    ExpectNoneOf(RedactedDsn(dsn), Fragments(password));

    DatabaseOptions options;
    options.path = dsn;
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(options);
    ASSERT_FALSE(db.ok()) << password;
    EXPECT_EQ(db.status().code(), absl::StatusCode::kInvalidArgument) << db.status();
    ExpectNoneOf(std::string(db.status().message()), Fragments(password));
  }
}

TEST(PgDsnSecretsTest, PercentEncodedAndColonPasswordsWorkAndNeverShow) {
  // s/e@c:r%t, percent-encoded as RFC 3986 section 2.1 says; a ':' after the first one needs
  // no escape (the user ends at the first).
  for (const auto& [written, decoded] : std::vector<std::pair<std::string, std::string>>{
           {"s%2Fe%40c%3Ar%25t-kq3ZtR", "s/e@c:r%t-kq3ZtR"}, {"col:on:pass", "col:on:pass"}}) {
    // A socket directory that does not exist: the connection fails at once.
    const std::string dsn =
        absl::StrCat("postgresql://capplan:", written, "@/capplan?host=/nonexistent/capplan-test&port=5432");
    EXPECT_TRUE(CheckDsn(dsn).ok()) << written << ": " << CheckDsn(dsn);
    const std::vector<std::string> secrets = {written, decoded};
    EXPECT_EQ(RedactedDsn(dsn), "postgresql://capplan@/capplan?host=/nonexistent/capplan-test&port=5432");
    DatabaseOptions options;
    options.path = dsn;
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(options);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), absl::StatusCode::kUnavailable) << db.status();
    ExpectNoneOf(std::string(db.status().message()), secrets);
    std::vector<std::string> listed = DsnSecrets(dsn);
    EXPECT_NE(std::find(listed.begin(), listed.end(), decoded), listed.end()) << written;
  }
}

using PgLogTest = PgStoreTest;

TEST_F(PgLogTest, DatabaseDownAndBackAreLoggedOnceEachWithoutThePassword) {
  absl::StatusOr<std::unique_ptr<testing::PgCluster>> own = testing::PgCluster::Start();
  ASSERT_TRUE(own.ok()) << own.status();
  testing::PgCluster& pg = **own;
  // The test cluster trusts local sockets, so any password connects; this one must not show.
  const std::string plain = FreshDatabase(&pg);
  const std::string dsn =
      absl::StrReplaceAll(plain, {{"postgresql://postgres@", "postgresql://postgres:Pw%2Fsecret@"}});
  std::mutex mu;
  std::vector<std::string> lines;
  DatabaseOptions options;
  options.path = dsn;
  options.log = [&](const std::string& line) {
    std::lock_guard<std::mutex> lock(mu);
    lines.push_back(line);
  };
  absl::StatusOr<std::unique_ptr<CatalogStore>> store = CatalogStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status();
  auto count = [&](const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu);
    int n = 0;
    for (const std::string& l : lines) n += absl::StrContains(l, needle) ? 1 : 0;
    return n;
  };
  auto wait_for = [&](const std::string& needle) {
    for (int i = 0; i < 1000 && count(needle) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return count(needle);
  };
  ASSERT_TRUE(pg.Stop("fast").ok());
  EXPECT_EQ(wait_for(" is down "), 1);
  // Still down after several reconnect attempts: still one line.
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  EXPECT_EQ(count(" is down "), 1);
  ASSERT_TRUE(pg.Restart().ok()) << pg.Log();
  EXPECT_EQ(wait_for(" is back "), 1);
  std::lock_guard<std::mutex> lock(mu);
  for (const std::string& l : lines) {
    ExpectNoneOf(l, {"Pw%2Fsecret", "Pw/secret"});
    EXPECT_TRUE(absl::StrContains(l, "postgresql://postgres@/")) << "the line names the database: " << l;
  }
  EXPECT_EQ(lines.size(), 2u);
}

}  // namespace
}  // namespace capplan::store
