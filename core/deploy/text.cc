#include "core/deploy/text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/format.h"

namespace capplan::core::deploy {

std::string YamlQuote(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", u));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string YamlList(const std::vector<std::string>& items, int indent) {
  std::string out;
  const std::string pad(static_cast<size_t>(indent), ' ');
  for (const std::string& item : items) absl::StrAppend(&out, pad, "- ", YamlQuote(item), "\n");
  return out;
}

namespace {

bool OnlyOf(absl::string_view word, absl::string_view extra) {
  for (const char c : word) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && extra.find(c) == absl::string_view::npos) return false;
  }
  return !word.empty();
}

constexpr char kSafe[] = "-_./=:@,+%";

}  // namespace

std::string ShellWord(absl::string_view word) {
  if (OnlyOf(word, kSafe)) return std::string(word);
  // A ${NAME} reference the shell expands (a node rank, the master's address), in double
  // quotes: nothing else in the word is special there.
  if (absl::StrContains(word, "${") && OnlyOf(word, absl::StrCat(kSafe, "${}"))) return absl::StrCat("\"", word, "\"");
  std::string out = "'";
  for (const char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string ShellLine(const std::vector<std::string>& words, int wrap) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) {
      const bool flag = wrap > 0 && absl::StartsWith(words[i], "--");
      out += flag ? absl::StrCat(" \\\n", std::string(static_cast<size_t>(wrap), ' ')) : " ";
    }
    out += ShellWord(words[i]);
  }
  return out;
}

std::string Figure(double value, int digits) { return Fixed(value, digits); }

}  // namespace capplan::core::deploy
