// Serves the web page (server/web/static/, embedded in the binary) over civetweb: GET and HEAD
// only, a Content-Type per extension, an ETag with revalidation, 404 for unknown files.
#pragma once

#include <CivetServer.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace capplan::server::web {

// What to answer to one request; body is a view into the embedded asset (empty for HEAD,
// 304 and errors whose text is in error_text).
struct WebResponse {
  int status = 200;
  std::string content_type;
  std::string etag;
  std::string allow;          // set on 405
  std::string_view body;      // the asset's bytes, unless HEAD or 304
  size_t content_length = 0;  // the full asset's length, also for HEAD
  std::string error_text;     // the body of a 404 or 405
};

// The Content-Type for a file name by its extension (application/octet-stream if unknown).
std::string ContentTypeFor(std::string_view name);

// Answers `method` on `path` (the URI path without query; "/" is index.html). if_none_match
// is the request's If-None-Match header, or empty.
WebResponse Respond(std::string_view method, std::string_view path, std::string_view if_none_match);

// The CSP frame-ancestors sources when none are configured: no page may frame this one.
inline constexpr char kDefaultFrameAncestors[] = "'none'";

// Checks a CSP frame-ancestors source list (CSP Level 3, section 6.4.2,
// https://www.w3.org/TR/CSP3/#directive-frame-ancestors) and returns it with single spaces:
// 'none' alone, or any of 'self', scheme sources ("https:") and host sources
// ("https://dash.example:3000", "https://*.example", "*"), without paths. Anything else
// (other keywords, ';', ',', quotes, control characters) is InvalidArgument naming the flag.
absl::StatusOr<std::string> ParseFrameAncestors(std::string_view sources);

// How the page is served.
struct WebOptions {
  std::string frame_ancestors = kDefaultFrameAncestors;  // as ParseFrameAncestors returns it
};

// A civetweb request handler (mg_request_handler) serving the embedded files; cbdata is a
// const WebOptions* (null: the defaults). Returns the HTTP status it sent.
int HandleWebRequest(mg_connection* conn, void* cbdata);

// The same as a CivetHandler for HttpServer::AddHandler: every method goes to
// HandleWebRequest, so anything but GET and HEAD is answered 405 rather than passed on.
class WebAssetHandler final : public CivetHandler {
 public:
  explicit WebAssetHandler(WebOptions options = {}) : options_(std::move(options)) {}

  bool handleGet(CivetServer* server, mg_connection* conn) override;
  bool handleGet(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handleHead(CivetServer* server, mg_connection* conn) override;
  bool handleHead(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handlePost(CivetServer* server, mg_connection* conn) override;
  bool handlePost(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handlePut(CivetServer* server, mg_connection* conn) override;
  bool handlePut(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handleDelete(CivetServer* server, mg_connection* conn) override;
  bool handleDelete(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handleOptions(CivetServer* server, mg_connection* conn) override;
  bool handleOptions(CivetServer* server, mg_connection* conn, int* status_code) override;
  bool handlePatch(CivetServer* server, mg_connection* conn) override;
  bool handlePatch(CivetServer* server, mg_connection* conn, int* status_code) override;

 private:
  bool Serve(mg_connection* conn, int* status_code);

  WebOptions options_;
};

}  // namespace capplan::server::web
