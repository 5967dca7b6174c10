// libFuzzer target for the admin token file (server/auth.h). For any input: Parse never
// crashes; a rejection never quotes a field that could be a token; an accepted table
// authenticates each of its lines' tokens as that line's caller and role, and nothing else
// from the input as a prefix or extension of them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "server/rpc/auth.h"

namespace {

using capplan::server::Caller;
using capplan::server::Role;
using capplan::server::TokenTable;

void Fail(const char* what, absl::string_view detail) {
  std::fprintf(stderr, "token_fuzz: %s: %.*s\n", what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// The file's lines as the format defines them (an oracle written apart from the parser):
// blank and '#' lines skipped, fields separated by spaces or tabs.
std::vector<std::vector<absl::string_view>> Lines(absl::string_view content) {
  std::vector<std::vector<absl::string_view>> out;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    out.push_back(absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty()));
  }
  return out;
}

void CheckRejection(absl::string_view input, const absl::Status& status) {
  // Any field of token length might be a token typed in the wrong column.
  for (absl::string_view field : absl::StrSplit(input, absl::ByAnyChar(" \t\r\n"))) {
    if (field.size() >= capplan::server::kMinTokenLength && status.message().find(field) != absl::string_view::npos) {
      Fail("error message quotes a field of the file", status.message());
    }
  }
}

void CheckTable(absl::string_view input, const TokenTable& table) {
  const std::vector<std::vector<absl::string_view>> lines = Lines(input);
  if (table.size() != lines.size()) Fail("table size differs from its lines", input);
  for (const std::vector<absl::string_view>& fields : lines) {
    if (fields.size() != 3) Fail("accepted a line without three fields", input);
    const std::string token(fields[0]);
    absl::StatusOr<Caller> caller = table.Authenticate("Bearer " + token);
    if (!caller.ok()) Fail("its own token is refused", caller.status().message());
    if (caller->name != fields[1]) Fail("token maps to another caller", caller->name);
    const Role role = fields[2] == "admin" ? Role::kAdmin : Role::kRead;
    if (caller->role != role) Fail("token maps to another role", fields[2]);
    if (table.Authenticate(token).ok()) Fail("accepted a token without \"Bearer \"", "");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<TokenTable> table = TokenTable::Parse(input);
  if (!table.ok()) {
    CheckRejection(input, table.status());
    return 0;
  }
  CheckTable(input, *table);
  // The whole input as presented metadata: never crashes, whatever it is.
  (void)table->Authenticate(input);
  return 0;
}
