# Build-time script: turns the web page's files (server/web/static/*) into a C++ source
# holding their bytes, so the server binary carries its page and never reads files at run time.
# Inputs: ASSETS_DIR, OUTPUT. Each file's ETag is the first 16 hex digits of its SHA-256.
file(GLOB asset_files RELATIVE "${ASSETS_DIR}" "${ASSETS_DIR}/*")
list(SORT asset_files)
set(arrays "")
set(table "")
set(i 0)
foreach(name ${asset_files})
  if(IS_DIRECTORY "${ASSETS_DIR}/${name}")
    message(FATAL_ERROR "web assets are one flat folder: ${name} is a directory")
  endif()
  if(NOT name MATCHES "^[A-Za-z0-9_.-]+$")
    message(FATAL_ERROR "web asset names are [A-Za-z0-9_.-]: ${name}")
  endif()
  file(READ "${ASSETS_DIR}/${name}" hex HEX)
  file(SHA256 "${ASSETS_DIR}/${name}" sha)
  string(SUBSTRING "${sha}" 0 16 etag)
  string(LENGTH "${hex}" hex_len)
  math(EXPR size "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # 24 bytes a line keeps the generated file readable in a debugger.
  string(REGEX REPLACE "((0x..,){24})" "\\1\n    " bytes "${bytes}")
  string(APPEND arrays "// ${name}\nconst unsigned char kAsset${i}[] = {\n    ${bytes}0x00};\n\n")
  string(APPEND table "      {\"${name}\", \"\\\"${etag}\\\"\", std::string_view(reinterpret_cast<const char*>(kAsset${i}), ${size})},\n")
  math(EXPR i "${i} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from server/web/static/* by cmake/embed_web_assets.cmake. Do not edit.
#include <string_view>
#include <vector>

#include \"server/web/embedded_assets.h\"

namespace capplan::server::web {
namespace {

${arrays}}  // namespace

const std::vector<EmbeddedAsset>& EmbeddedAssets() {
  static const std::vector<EmbeddedAsset> kAssets = {
${table}  };
  return kAssets;
}

}  // namespace capplan::server::web
")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
