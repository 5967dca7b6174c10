// Serves the web page (server/web/static/, embedded in the binary) over civetweb: GET and HEAD
// only, a Content-Type per extension, an ETag with revalidation, 404 for unknown files.
#pragma once

#include <CivetServer.h>

#include <string>
#include <string_view>

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

// A civetweb request handler (mg_request_handler) serving the embedded files; cbdata unused.
// Returns the HTTP status it sent.
int HandleWebRequest(mg_connection* conn, void* cbdata);

// The same as a CivetHandler for HttpServer::AddHandler: every method goes to
// HandleWebRequest, so anything but GET and HEAD is answered 405 rather than passed on.
class WebAssetHandler final : public CivetHandler {
 public:
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
};

}  // namespace capplan::server::web
