// The comments of proto/*.proto, read from a descriptor set protoc wrote with
// --include_source_info and embedded at build time (proto/CMakeLists.txt). The generated
// descriptor pool carries no source info, so these come from a second pool built from that set.
#pragma once

#include <google/protobuf/descriptor.h>

#include <memory>
#include <string>

namespace capplan::server::http {

class ProtoComments {
 public:
  // The comments of the embedded descriptor set; a set that does not parse or build gives no
  // comments (every lookup answers "").
  static const ProtoComments& Embedded();

  // The leading comment, then the trailing one, of the element with the same full name as `d`,
  // whitespace-trimmed, lines joined by spaces, paragraphs by a blank line; "" when none.
  std::string Of(const google::protobuf::Descriptor* d) const;
  std::string Of(const google::protobuf::FieldDescriptor* d) const;
  std::string Of(const google::protobuf::OneofDescriptor* d) const;
  std::string Of(const google::protobuf::EnumDescriptor* d) const;
  std::string Of(const google::protobuf::EnumValueDescriptor* d) const;
  std::string Of(const google::protobuf::ServiceDescriptor* d) const;
  std::string Of(const google::protobuf::MethodDescriptor* d) const;

  // From a serialized google.protobuf.FileDescriptorSet (files in dependency order, as protoc
  // writes them with --include_imports).
  explicit ProtoComments(std::string_view descriptor_set);

 private:
  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
};

}  // namespace capplan::server::http
