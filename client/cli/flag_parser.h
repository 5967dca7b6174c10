// A small table-driven flag parser for the CLI's commands. absl flags has one
// global set and no subcommands, so it cannot give each command its own flags,
// help and unknown-flag errors; this keeps a table of (name, value type, help,
// default, setter) per command instead.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace capplan::cli {

class FlagSet {
 public:
  // Sets a value from the text after "=" (or the next argument); returns why it
  // cannot.
  using Setter = std::function<absl::Status(const std::string& value)>;

  // `value_name` is what help shows after "=", e.g. "USD" or "N"; `help` says
  // the unit.
  void Custom(const std::string& name, const std::string& value_name, const std::string& help,
              const std::string& default_text, Setter set);
  void String(const std::string& name, const std::string& value_name, const std::string& help, std::string* out);
  // Appends each use: the flag may be given more than once.
  void Repeated(const std::string& name, const std::string& value_name, const std::string& help,
                std::vector<std::string>* out);
  // --name, --name=true|false, --noname.
  void Bool(const std::string& name, const std::string& help, bool* out);
  // Flags accepted but left out of Help() (the global flags, listed by `capplan
  // --help`).
  void Hidden(FlagSet&& other);

  // Parses `args`: flags go to their setters, the rest to `positional`. With
  // `stop_at_positional`, the first positional argument and everything after it
  // are left in `positional` unparsed. Sets `*help` on -h/--help. Unknown flags
  // are an error.
  absl::Status Parse(const std::vector<std::string>& args, bool stop_at_positional,
                     std::vector<std::string>* positional, bool* help);

  // One line per visible flag: "  --name=VALUE  help (default: D)".
  std::string Help() const;

  bool Has(const std::string& name) const;

 private:
  struct Spec {
    std::string name;
    std::string value_name;  // empty for a bool
    std::string help;
    std::string default_text;
    Setter set;
    bool hidden = false;
  };
  const Spec* Find(const std::string& name) const;

  std::vector<Spec> specs_;
};

}  // namespace capplan::cli
