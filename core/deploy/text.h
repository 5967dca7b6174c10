// Text helpers the renderers share: YAML scalars and sequences, shell words, figures.
#pragma once

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace capplan::core::deploy {

// A YAML double-quoted scalar (YAML 1.2 Sec. 7.3.1): backslash, quote and control
// characters escaped, so any text stays one string.
std::string YamlQuote(absl::string_view text);

// `items` as a YAML block sequence, each a quoted scalar, at `indent` spaces.
std::string YamlList(const std::vector<std::string>& items, int indent);

// One POSIX shell word: as is when made only of safe characters, else single-quoted.
std::string ShellWord(absl::string_view word);

// The words shell-quoted and joined by spaces; `wrap` > 0 puts each flag ("--x") on a new
// line continued with " \\" and `wrap` spaces of indent.
std::string ShellLine(const std::vector<std::string>& words, int wrap = 0);

// A figure with `digits` decimals, for comments and annotations.
std::string Figure(double value, int digits);

}  // namespace capplan::core::deploy
