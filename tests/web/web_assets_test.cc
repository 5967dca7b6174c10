// The embedded web page's responses: what a browser gets for each path and method.
#include "server/web/web_assets.h"

#include <gtest/gtest.h>

#include <string>

#include "server/web/embedded_assets.h"

namespace capplan::server::web {
namespace {

TEST(WebAssetsTest, RootIsTheIndexPageAsHtml) {
  const WebResponse r = Respond("GET", "/", "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/html; charset=utf-8");
  EXPECT_NE(std::string(r.body).find("<script src=\"app.js\">"), std::string::npos);
  EXPECT_EQ(r.body, Respond("GET", "/index.html", "").body);
}

TEST(WebAssetsTest, ScriptAndStyleHaveTheirTypes) {
  EXPECT_EQ(Respond("GET", "/app.js", "").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Respond("GET", "/style.css", "").content_type, "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("logo.png"), "image/png");
  EXPECT_EQ(ContentTypeFor("archive.tar"), "application/octet-stream");
}

TEST(WebAssetsTest, UnknownFilesAndTraversalAre404) {
  EXPECT_EQ(Respond("GET", "/nope.js", "").status, 404);
  EXPECT_EQ(Respond("GET", "/../CMakeLists.txt", "").status, 404);
  EXPECT_EQ(Respond("GET", "/static/app.js", "").status, 404);
  EXPECT_EQ(Respond("GET", "/app.js/", "").status, 404);
}

TEST(WebAssetsTest, OnlyGetAndHead) {
  const WebResponse post = Respond("POST", "/", "");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.allow, "GET, HEAD");
  EXPECT_EQ(Respond("DELETE", "/app.js", "").status, 405);
  const WebResponse head = Respond("HEAD", "/app.js", "");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.content_length, Respond("GET", "/app.js", "").body.size());
}

TEST(WebAssetsTest, EtagRevalidates) {
  const WebResponse first = Respond("GET", "/style.css", "");
  ASSERT_EQ(first.etag.size(), 18u);  // 16 hex digits of the SHA-256, quoted
  EXPECT_EQ(Respond("GET", "/style.css", first.etag).status, 304);
  EXPECT_EQ(Respond("GET", "/style.css", "W/" + first.etag).status, 304);
  EXPECT_EQ(Respond("GET", "/style.css", "\"other\", " + first.etag).status, 304);
  EXPECT_EQ(Respond("GET", "/style.css", "*").status, 304);
  EXPECT_EQ(Respond("GET", "/style.css", "\"other\"").status, 200);
  EXPECT_NE(Respond("GET", "/app.js", "").etag, first.etag);
}

TEST(WebAssetsTest, EveryEmbeddedFileIsServedWhole) {
  ASSERT_GE(EmbeddedAssets().size(), 3u);
  for (const EmbeddedAsset& a : EmbeddedAssets()) {
    const WebResponse r = Respond("GET", "/" + std::string(a.name), "");
    EXPECT_EQ(r.status, 200) << a.name;
    EXPECT_EQ(r.body.size(), a.body.size()) << a.name;
    EXPECT_FALSE(a.body.empty()) << a.name;
  }
}

TEST(FrameAncestorsTest, TakesNoneSelfSchemesAndHosts) {
  EXPECT_EQ(ParseFrameAncestors("'none'").value(), "'none'");
  EXPECT_EQ(ParseFrameAncestors("  'self'   https://grafana.example:3000 ").value(),
            "'self' https://grafana.example:3000");
  EXPECT_EQ(ParseFrameAncestors("https: https://*.example.org http://10.0.0.5:*").value(),
            "https: https://*.example.org http://10.0.0.5:*");
}

TEST(FrameAncestorsTest, RefusesWhatCouldBreakTheHeader) {
  // Each would end the directive, add a header, name a path, or mix 'none' with sources.
  for (const char* bad : {"", "'none' 'self'", "'self'; script-src *", "https://a.example/page", "https://a.example,b",
                          "'unsafe-inline'", "https://a.example\r\nX-Evil: 1", "https://:80", "https://a..example."}) {
    const absl::StatusOr<std::string> r = ParseFrameAncestors(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("http_frame_ancestors"), std::string::npos) << r.status();
  }
}

}  // namespace
}  // namespace capplan::server::web
