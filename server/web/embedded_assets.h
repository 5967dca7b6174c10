// The web page's files, embedded in the binary at build time (cmake/embed_web_assets.cmake
// generates the definition from server/web/static/*).
#pragma once

#include <string_view>
#include <vector>

namespace capplan::server::web {

// One embedded file: its name under static/ (no leading slash), a quoted strong ETag from its
// SHA-256, and its bytes.
struct EmbeddedAsset {
  std::string_view name;
  std::string_view etag;
  std::string_view body;
};

// Every embedded file, sorted by name.
const std::vector<EmbeddedAsset>& EmbeddedAssets();

}  // namespace capplan::server::web
