// The HTTP listener's request policy: which CORS origins the flag accepts and matches, and
// which Content-Type headers name a JSON body.
#include <gtest/gtest.h>

#include "server/http/request_policy.h"

namespace capplan::server::http {
namespace {

TEST(CorsOriginsTest, ParsesAListOfOrigins) {
  absl::StatusOr<std::vector<std::string>> o =
      ParseCorsOrigins(" https://Planner.Example , http://localhost:3000,http://[::1]:8080");
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o, (std::vector<std::string>{"https://planner.example", "http://localhost:3000", "http://[::1]:8080"}));
  EXPECT_TRUE(ParseCorsOrigins("")->empty());
}

TEST(CorsOriginsTest, RefusesWildcardsPathsAndOtherSchemes) {
  for (const char* bad :
       {"*", "planner.example", "ftp://planner.example", "https://planner.example/", "https://planner.example/app",
        "https://", "https://host:0", "https://host:99999", "https://user@host", "null"}) {
    const absl::StatusOr<std::vector<std::string>> o = ParseCorsOrigins(bad);
    EXPECT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.status().message().find("http_cors_origins"), absl::string_view::npos) << o.status();
  }
}

TEST(CorsOriginsTest, MatchesExactlyWhatWasListed) {
  const std::vector<std::string> allowed = *ParseCorsOrigins("https://planner.example");
  EXPECT_TRUE(CorsOriginAllowed(allowed, "https://planner.example"));
  EXPECT_TRUE(CorsOriginAllowed(allowed, "HTTPS://PLANNER.EXAMPLE"));
  EXPECT_FALSE(CorsOriginAllowed(allowed, "http://planner.example"));
  EXPECT_FALSE(CorsOriginAllowed(allowed, "https://planner.example:8443"));
  EXPECT_FALSE(CorsOriginAllowed(allowed, "https://evil.planner.example"));
  EXPECT_FALSE(CorsOriginAllowed(allowed, "null"));
  EXPECT_FALSE(CorsOriginAllowed(allowed, ""));
  EXPECT_FALSE(CorsOriginAllowed({}, "https://planner.example"));
}

TEST(JsonContentTypeTest, AcceptsJsonWithAUtf8CharsetOnly) {
  for (const char* ok :
       {"application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=UTF-8",
        "application/json; charset=\"utf-8\"", " application/json "}) {
    EXPECT_TRUE(IsJsonContentType(ok)) << ok;
  }
  for (const char* bad : {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/json; charset=iso-8859-1", "application/jsonp", "text/json",
                          "application/json; boundary=x", "application/json, text/plain"}) {
    EXPECT_FALSE(IsJsonContentType(bad)) << bad;
  }
}

}  // namespace
}  // namespace capplan::server::http
