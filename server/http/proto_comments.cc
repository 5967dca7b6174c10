#include "server/http/proto_comments.h"

#include <google/protobuf/descriptor.pb.h>

#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace capplan::proto_source {
std::string_view EmbeddedDescriptorSet();
}  // namespace capplan::proto_source

namespace capplan::server::http {

namespace {

// One comment block as prose: each paragraph's lines joined by a space.
std::string Prose(const std::string& comment) {
  std::vector<std::string> paragraphs;
  std::string current;
  for (absl::string_view line : absl::StrSplit(comment, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) {
      if (!current.empty()) paragraphs.push_back(std::move(current));
      current.clear();
      continue;
    }
    if (!current.empty()) current.push_back(' ');
    current.append(line.data(), line.size());
  }
  if (!current.empty()) paragraphs.push_back(std::move(current));
  return absl::StrJoin(paragraphs, "\n\n");
}

template <typename D>
std::string Comments(const D* d) {
  if (d == nullptr) return "";
  google::protobuf::SourceLocation loc;
  if (!d->GetSourceLocation(&loc)) return "";
  const std::string leading = Prose(loc.leading_comments);
  const std::string trailing = Prose(loc.trailing_comments);
  if (leading.empty() || trailing.empty()) return leading + trailing;
  return leading + "\n\n" + trailing;
}

}  // namespace

ProtoComments::ProtoComments(std::string_view descriptor_set)
    : pool_(std::make_unique<google::protobuf::DescriptorPool>()) {
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromArray(descriptor_set.data(), static_cast<int>(descriptor_set.size()))) return;
  for (const google::protobuf::FileDescriptorProto& file : set.file()) {
    if (pool_->BuildFile(file) == nullptr) return;  // the rest would miss this dependency
  }
}

const ProtoComments& ProtoComments::Embedded() {
  static const ProtoComments* const kEmbedded = new ProtoComments(proto_source::EmbeddedDescriptorSet());
  return *kEmbedded;
}

std::string ProtoComments::Of(const google::protobuf::Descriptor* d) const {
  return Comments(pool_->FindMessageTypeByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::FieldDescriptor* d) const {
  return Comments(pool_->FindFieldByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::OneofDescriptor* d) const {
  return Comments(pool_->FindOneofByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::EnumDescriptor* d) const {
  return Comments(pool_->FindEnumTypeByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::EnumValueDescriptor* d) const {
  return Comments(pool_->FindEnumValueByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::ServiceDescriptor* d) const {
  return Comments(pool_->FindServiceByName(d->full_name()));
}
std::string ProtoComments::Of(const google::protobuf::MethodDescriptor* d) const {
  return Comments(pool_->FindMethodByName(d->full_name()));
}

}  // namespace capplan::server::http
