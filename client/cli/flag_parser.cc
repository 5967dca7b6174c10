// The per-command flag table: parsing and help text.
#include "client/cli/flag_parser.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace capplan::cli {
void FlagSet::Custom(const std::string& name, const std::string& value_name, const std::string& help,
                     const std::string& default_text, Setter set) {
  specs_.push_back(Spec{name, value_name, help, default_text, std::move(set)});
}

void FlagSet::String(const std::string& name, const std::string& value_name, const std::string& help,
                     std::string* out) {
  Custom(name, value_name, help, out->empty() ? "" : *out, [out](const std::string& v) {
    *out = v;
    return absl::OkStatus();
  });
}

void FlagSet::Repeated(const std::string& name, const std::string& value_name, const std::string& help,
                       std::vector<std::string>* out) {
  Custom(name, value_name, absl::StrCat(help, "; repeatable"), "", [out](const std::string& v) {
    out->push_back(v);
    return absl::OkStatus();
  });
}

void FlagSet::Bool(const std::string& name, const std::string& help, bool* out) {
  Custom(name, "", help, *out ? "true" : "false", [out](const std::string& v) {
    if (v == "true" || v == "1") {
      *out = true;
    } else if (v == "false" || v == "0") {
      *out = false;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("want true or false, got \"", v, "\""));
    }
    return absl::OkStatus();
  });
}

void FlagSet::Hidden(FlagSet&& other) {
  for (Spec& s : other.specs_) {
    s.hidden = true;
    specs_.push_back(std::move(s));
  }
}

const FlagSet::Spec* FlagSet::Find(const std::string& name) const {
  for (const Spec& s : specs_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool FlagSet::Has(const std::string& name) const { return Find(name) != nullptr; }

absl::Status FlagSet::Parse(const std::vector<std::string>& args, bool stop_at_positional,
                            std::vector<std::string>* positional, bool* help) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional->insert(positional->end(), args.begin() + static_cast<long>(i) + 1, args.end());
      return absl::OkStatus();
    }
    if (arg.size() < 2 || arg[0] != '-') {
      if (stop_at_positional) {
        positional->insert(positional->end(), args.begin() + static_cast<long>(i), args.end());
        return absl::OkStatus();
      }
      positional->push_back(arg);
      continue;
    }
    const std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    std::string name = body.substr(0, eq);
    if (name == "help" || name == "h") {
      *help = true;
      continue;
    }
    const Spec* spec = Find(name);
    std::string value;
    if (spec == nullptr && eq == std::string::npos && name.rfind("no", 0) == 0) {
      spec = Find(name.substr(2));  // --noNAME for a bool
      if (spec != nullptr && !spec->value_name.empty()) spec = nullptr;
      if (spec != nullptr) value = "false";
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (!value.empty()) {
      // --noNAME, handled above.
    } else if (eq != std::string::npos) {
      value = body.substr(eq + 1);
    } else if (spec->value_name.empty()) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
    }
    absl::Status s = spec->set(value);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("--", name, ": ", s.message()));
  }
  return absl::OkStatus();
}

std::string FlagSet::Help() const {
  std::vector<std::pair<std::string, const Spec*>> rows;
  size_t width = 0;
  for (const Spec& s : specs_) {
    if (s.hidden) continue;
    std::string left = absl::StrCat("  --", s.name, s.value_name.empty() ? "" : "=", s.value_name);
    width = std::max(width, left.size());
    rows.emplace_back(std::move(left), &s);
  }
  std::string out;
  for (const auto& [left, s] : rows) {
    absl::StrAppend(&out, left, std::string(width - left.size() + 2, ' '), s->help);
    if (!s->default_text.empty()) absl::StrAppend(&out, " (default: ", s->default_text, ")");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace capplan::cli
