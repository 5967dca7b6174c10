#include "absl/strings/ascii.h"
#include "core/deploy/deploy.h"

namespace capplan::core::deploy {

namespace {
constexpr size_t kMaxLabelChars = 63;  // RFC 1123 label, as Kubernetes object names
}  // namespace

std::string DnsLabel(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u)) {
      out.push_back(absl::ascii_tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
  }
  if (out.size() > kMaxLabelChars) out.resize(kMaxLabelChars);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "capplan" : out;
}

}  // namespace capplan::core::deploy
