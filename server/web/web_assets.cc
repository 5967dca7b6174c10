// Serves the embedded web page over civetweb (see web_assets.h).
#include "server/web/web_assets.h"

#include <CivetServer.h>
#include <civetweb.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "server/web/embedded_assets.h"

namespace capplan::server::web {
namespace {

// Debian's Abseil (20220623) does not take std::string_view where it wants absl::string_view.
absl::string_view Absl(std::string_view s) { return {s.data(), s.size()}; }

const EmbeddedAsset* Find(std::string_view name) {
  const std::vector<EmbeddedAsset>& assets = EmbeddedAssets();
  auto it = std::lower_bound(assets.begin(), assets.end(), name,
                             [](const EmbeddedAsset& a, std::string_view n) { return a.name < n; });
  return it != assets.end() && it->name == name ? &*it : nullptr;
}

// If-None-Match holds "*" or a comma-separated list of entity tags, weak ones prefixed W/
// (RFC 9110 13.1.2: the comparison for If-None-Match is weak).
bool EtagMatches(std::string_view header, std::string_view etag) {
  for (absl::string_view tag : absl::StrSplit(Absl(header), ',')) {
    tag = absl::StripAsciiWhitespace(tag);
    if (absl::StartsWith(tag, "W/")) tag.remove_prefix(2);
    if (tag == "*" || tag == Absl(etag)) return true;
  }
  return false;
}

bool IsHostChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.'; }

bool IsScheme(absl::string_view s) {
  if (s.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (const char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

// host-source = [scheme "://"] host [":" port], host "*" or ["*."] labels; no path.
bool IsHostSource(absl::string_view s) {
  if (const size_t sep = s.find("://"); sep != absl::string_view::npos) {
    if (!IsScheme(s.substr(0, sep))) return false;
    s.remove_prefix(sep + 3);
  }
  if (const size_t colon = s.rfind(':'); colon != absl::string_view::npos) {
    const absl::string_view port = s.substr(colon + 1);
    if (port.empty()) return false;
    if (port != "*" && !std::all_of(port.begin(), port.end(), [](char c) { return absl::ascii_isdigit(c); })) {
      return false;
    }
    s = s.substr(0, colon);
  }
  if (s == "*") return true;
  absl::ConsumePrefix(&s, "*.");
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  return std::all_of(s.begin(), s.end(), IsHostChar);
}

}  // namespace

absl::StatusOr<std::string> ParseFrameAncestors(std::string_view sources) {
  const std::vector<absl::string_view> tokens = absl::StrSplit(Absl(sources), ' ', absl::SkipWhitespace());
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("http_frame_ancestors: \"", absl::CHexEscape(Absl(sources)), "\": ", why,
                     "; want 'none', or space-separated 'self', scheme sources (https:) and host sources "
                     "(https://dash.example:3000, https://*.example)"));
  };
  if (tokens.empty()) return bad("no source");
  for (absl::string_view t : tokens) {
    t = absl::StripAsciiWhitespace(t);
    if (t == "'none'") {
      if (tokens.size() != 1) return bad("'none' must stand alone");
      continue;
    }
    if (t == "'self'") continue;
    if (t.size() > 1 && t.back() == ':' && IsScheme(t.substr(0, t.size() - 1))) continue;
    if (!IsHostSource(t)) return bad(absl::StrCat("\"", absl::CHexEscape(t), "\" is not a source"));
  }
  return absl::StrJoin(
      tokens, " ", [](std::string* out, absl::string_view t) { absl::StrAppend(out, absl::StripAsciiWhitespace(t)); });
}

std::string ContentTypeFor(std::string_view name) {
  struct Type {
    std::string_view extension;
    std::string_view content_type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const Type& t : kTypes) {
    if (absl::EndsWith(Absl(name), Absl(t.extension))) return std::string(t.content_type);
  }
  return "application/octet-stream";
}

WebResponse Respond(std::string_view method, std::string_view path, std::string_view if_none_match) {
  WebResponse r;
  const bool head = method == "HEAD";
  if (method != "GET" && !head) {
    r.status = 405;
    r.allow = "GET, HEAD";
    r.error_text = absl::StrCat("method ", Absl(method), " not allowed: GET or HEAD\n");
    return r;
  }
  std::string_view name = path;
  if (absl::StartsWith(Absl(name), "/")) name.remove_prefix(1);
  if (name.empty()) name = "index.html";
  const EmbeddedAsset* asset = Find(name);
  if (asset == nullptr) {
    r.status = 404;
    r.error_text = absl::StrCat("no page at ", Absl(path), "\n");
    return r;
  }
  r.content_type = ContentTypeFor(asset->name);
  r.etag = std::string(asset->etag);
  r.content_length = asset->body.size();
  if (!if_none_match.empty() && EtagMatches(if_none_match, asset->etag)) {
    r.status = 304;
    return r;
  }
  if (!head) r.body = asset->body;
  return r;
}

int HandleWebRequest(mg_connection* conn, void* cbdata) {
  static const WebOptions kDefaults;
  const WebOptions& options = cbdata != nullptr ? *static_cast<const WebOptions*>(cbdata) : kDefaults;
  const mg_request_info* info = mg_get_request_info(conn);
  const char* inm = mg_get_header(conn, "If-None-Match");
  const WebResponse r = Respond(info->request_method != nullptr ? info->request_method : "",
                                info->local_uri != nullptr ? info->local_uri : "", inm != nullptr ? inm : "");
  // The page loads only its own scripts and styles: no inline script, no third party; only the
  // configured pages may frame it (--http_frame_ancestors).
  std::string headers = absl::StrCat("HTTP/1.1 ", r.status, " ", mg_get_response_code_text(conn, r.status),
                                     "\r\nX-Content-Type-Options: nosniff\r\n"
                                     "Content-Security-Policy: default-src 'self'; frame-ancestors ",
                                     options.frame_ancestors, "\r\n");
  if (r.status == 200 || r.status == 304) {
    // no-cache: the browser revalidates with the ETag, so a new server binary's page is seen at once.
    absl::StrAppend(&headers, "Cache-Control: no-cache\r\nETag: ", r.etag, "\r\n");
  }
  if (!r.allow.empty()) absl::StrAppend(&headers, "Allow: ", r.allow, "\r\n");
  if (r.status == 200) {
    absl::StrAppend(&headers, "Content-Type: ", r.content_type, "\r\nContent-Length: ", r.content_length, "\r\n\r\n");
  } else if (r.status == 304) {
    absl::StrAppend(&headers, "\r\n");
  } else {
    absl::StrAppend(&headers, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: ", r.error_text.size(),
                    "\r\n\r\n");
  }
  mg_write(conn, headers.data(), headers.size());
  if (!r.body.empty()) mg_write(conn, r.body.data(), r.body.size());
  const bool head = info->request_method != nullptr && std::string_view(info->request_method) == "HEAD";
  if (!r.error_text.empty() && !head) mg_write(conn, r.error_text.data(), r.error_text.size());
  return r.status;
}

bool WebAssetHandler::Serve(mg_connection* conn, int* status_code) {
  const int status = HandleWebRequest(conn, &options_);
  if (status_code != nullptr) *status_code = status;
  return true;
}

bool WebAssetHandler::handleGet(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handleGet(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handleHead(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handleHead(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handlePost(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handlePost(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handlePut(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handlePut(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handleDelete(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handleDelete(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handleOptions(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handleOptions(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}
bool WebAssetHandler::handlePatch(CivetServer* /*server*/, mg_connection* conn) { return Serve(conn, nullptr); }
bool WebAssetHandler::handlePatch(CivetServer* /*server*/, mg_connection* conn, int* status_code) {
  return Serve(conn, status_code);
}

}  // namespace capplan::server::web
