# Build-time script: turns the descriptor set protoc wrote with --include_source_info
# (proto/CMakeLists.txt) into a C++ source holding its bytes, so that the server reads the
# .proto comments without reading files at run time. Inputs: INPUT, OUTPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
math(EXPR size "${hex_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUTPUT}.tmp"
"// Generated from proto/*.proto by cmake/embed_descriptor_set.cmake. Do not edit.
#include <string_view>

namespace capplan::proto_source {
namespace {

const unsigned char kDescriptorSet[] = {
    ${bytes}0x00};

}  // namespace

// A serialized google.protobuf.FileDescriptorSet of proto/*.proto and their imports, with
// source info (comments).
std::string_view EmbeddedDescriptorSet() {
  return std::string_view(reinterpret_cast<const char*>(kDescriptorSet), ${size});
}

}  // namespace capplan::proto_source
")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
