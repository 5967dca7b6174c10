// Reading rendered deploy files back for tests: YAML through PyYAML's safe_load_all (python3-yaml,
// scripts/install-deps.sh), shell through Python's shlex and `bash -n`. Test-side I/O only.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace capplan::core::testing {

// Writes `text` to a temporary file, runs `command FILE`, returns its stdout and exit status.
inline std::string RunOnText(const std::string& text, const std::string& command, int* status) {
  char path[] = "/tmp/capplan_deploy_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return "";
  close(fd);
  {
    std::ofstream f(path, std::ios::binary);
    f << text;
  }
  std::string out;
  FILE* p = popen((command + " " + path + " 2>&1").c_str(), "r");
  if (p != nullptr) {
    char buf[4096];
    size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    *status = pclose(p);
  } else {
    *status = -1;
  }
  std::remove(path);
  return out;
}

// Every scalar of every YAML document as "doc|key|0|key" -> "type:value" (type as Python
// names it: int, str, bool, float), so a test checks both the value and that YAML read it as
// that type. Empty on a parse error (with "error" holding the message).
inline std::map<std::string, std::string> ParseYaml(const std::string& text) {
  static const char kScript[] =
      "python3 -c '\n"
      "import sys, yaml\n"
      "def walk(p, v):\n"
      "    if isinstance(v, dict):\n"
      "        for k, x in v.items(): walk(p + [str(k)], x)\n"
      "    elif isinstance(v, list):\n"
      "        for i, x in enumerate(v): walk(p + [str(i)], x)\n"
      "    else:\n"
      "        print(\"|\".join(p) + \"\\t\" + type(v).__name__ + \":\" + str(v).replace(\"\\n\", \"\\\\n\"))\n"
      "for i, d in enumerate(yaml.safe_load_all(open(sys.argv[1]))):\n"
      "    walk([str(i)], d)\n"
      "'";
  int status = 0;
  const std::string out = RunOnText(text, kScript, &status);
  std::map<std::string, std::string> m;
  if (status != 0) {
    m["error"] = out;
    return m;
  }
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) m[line.substr(0, tab)] = line.substr(tab + 1);
    start = end + 1;
  }
  return m;
}

// The words of a shell text as the shell splits them (shlex, comments dropped).
inline std::vector<std::string> ShellWords(const std::string& text) {
  static const char kScript[] =
      "python3 -c '\n"
      "import sys, shlex\n"
      "for w in shlex.split(open(sys.argv[1]).read(), comments=True): print(w)\n"
      "'";
  int status = 0;
  const std::string out = RunOnText(text, kScript, &status);
  std::vector<std::string> words;
  if (status != 0) return words;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    words.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

// Whether bash parses the script (bash -n: syntax only, nothing runs).
inline bool BashParses(const std::string& script) {
  int status = 0;
  RunOnText(script, "bash -n", &status);
  return status == 0;
}

// The word after `flag` in `words` ("--tp 8"), or after "flag=" in one word; "" when absent.
inline std::string FlagValue(const std::vector<std::string>& words, const std::string& flag) {
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == flag && i + 1 < words.size()) return words[i + 1];
    if (words[i].rfind(flag + "=", 0) == 0) return words[i].substr(flag.size() + 1);
  }
  return "";
}

inline bool HasWord(const std::vector<std::string>& words, const std::string& word) {
  for (const std::string& w : words) {
    if (w == word) return true;
  }
  return false;
}

}  // namespace capplan::core::testing
