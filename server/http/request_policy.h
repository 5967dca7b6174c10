// What the HTTP listener accepts from a browser or any other caller before a request reaches
// the gateway: which origins CORS lets call the API, and which request bodies it reads.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace capplan::server::http {

// "https://a.example, http://localhost:3000" -> the origins, each checked to be
// scheme://host[:port] with scheme http or https and nothing after the authority (browsers
// send exactly that in Origin). "*" is refused: the API has bearer-token routes, and a
// wildcard would let any page script them. Empty text: no origins (CORS off).
absl::StatusOr<std::vector<std::string>> ParseCorsOrigins(absl::string_view list);

// Whether `origin` (the request's Origin header) is one of `allowed`, compared exactly
// (scheme and host are compared case-insensitively, as URLs are).
bool CorsOriginAllowed(const std::vector<std::string>& allowed, absl::string_view origin);

// Whether a Content-Type header names JSON: application/json, optionally with a charset
// parameter of utf-8 (RFC 8259 section 8.1: JSON between systems is UTF-8).
bool IsJsonContentType(absl::string_view content_type);

}  // namespace capplan::server::http
