// PostgreSQL connection strings and placeholder spelling.
#include "server/store/pg_dsn.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace capplan::store {

namespace {

// The DSN's parsed keywords that are set; empty when it does not parse.
std::map<std::string, std::string> DsnFields(const std::string& dsn) {
  std::map<std::string, std::string> out;
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) return out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && *o->val != '\0') out[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  return out;
}

}  // namespace

absl::Status CheckDsn(const std::string& dsn) {
  static constexpr char kHint[] =
      "; percent-encode reserved characters in the password (/ as %2F, @ as %40, : as %3A, ? as %3F, # as %23, "
      "% as %25), or generate a URL-safe one (hex)";
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(dsn.c_str(), &err);
  // libpq's message quotes the offending text, which may be the password: not passed on.
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("the PostgreSQL DSN does not parse as a libpq URI", kHint));
  }
  std::string bad;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val == nullptr || *o->val == '\0') continue;
    const std::string key = o->keyword, value = o->val;
    if (key == "port") {
      for (char c : value) {
        if (std::isdigit(static_cast<unsigned char>(c)) == 0 && c != ',') bad = "its port is not a number";
      }
    } else if ((key == "host" || key == "hostaddr" || key == "dbname") && value.find('@') != std::string::npos) {
      bad = absl::StrCat("its ", key, " holds an '@'");
    }
  }
  PQconninfoFree(opts);
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("the PostgreSQL DSN is misread: ", bad, kHint));
}

std::vector<std::string> DsnSecrets(const std::string& dsn) {
  std::vector<std::string> out;
  std::map<std::string, std::string> f = DsnFields(dsn);
  if (f.count("password") == 0) return out;
  out.push_back(f["password"]);
  // As written: between the first ':' after "://" and the '@' ending the user info.
  const size_t scheme = dsn.find("://");
  if (scheme != std::string::npos) {
    const size_t at = dsn.rfind('@', dsn.find('?'));
    const size_t colon = dsn.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      const std::string raw = dsn.substr(colon + 1, at - colon - 1);
      if (!raw.empty() && raw != out[0]) out.push_back(raw);
    }
  }
  // Longest first, so a password containing another form is blotted out whole.
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return out;
}

bool IsPostgresDsn(const std::string& db) {
  return absl::StartsWith(db, "postgresql://") || absl::StartsWith(db, "postgres://");
}

std::string WithConnectDefaults(const std::string& dsn) {
  const std::map<std::string, std::string> set = DsnFields(dsn);
  std::string out = dsn;
  char sep = dsn.find('?') == std::string::npos ? '?' : '&';
  for (const auto& [key, value] : std::map<std::string, std::string>{{"connect_timeout", "3"},
                                                                     {"keepalives_idle", "5"},
                                                                     {"keepalives_interval", "2"},
                                                                     {"keepalives_count", "3"},
                                                                     {"tcp_user_timeout", "10000"}}) {
    if (set.count(key) != 0) continue;
    absl::StrAppend(&out, std::string(1, sep), key, "=", value);
    sep = '&';
  }
  return out;
}

std::string DsnHost(const std::string& dsn) {
  std::map<std::string, std::string> f = DsnFields(dsn);
  std::string host = f.count("host") != 0 ? f["host"] : (f.count("hostaddr") != 0 ? f["hostaddr"] : "localhost");
  if (f.count("port") != 0) absl::StrAppend(&host, ":", f["port"]);
  return host;
}

std::string RedactedDsn(const std::string& dsn) {
  std::map<std::string, std::string> f = DsnFields(dsn);
  if (f.empty() || !CheckDsn(dsn).ok()) return "postgresql://(DSN not shown: it does not parse)";
  std::string out = "postgresql://";
  if (f.count("user") != 0) absl::StrAppend(&out, f["user"], "@");
  const std::string host = DsnHost(dsn);
  const std::string dbname = f.count("dbname") != 0 ? f["dbname"] : "";
  if (!host.empty() && host[0] == '/') {  // a unix socket directory
    absl::StrAppend(&out, "/", dbname, "?host=", f["host"]);
    if (f.count("port") != 0) absl::StrAppend(&out, "&port=", f["port"]);
    return out;
  }
  absl::StrAppend(&out, host, "/", dbname);
  return out;
}

std::string PgPlaceholders(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int highest = 0;
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      // A quoted literal or identifier, with doubled quotes inside, copied as is.
      size_t end = i + 1;
      while (end < sql.size()) {
        if (sql[end] == c) {
          if (end + 1 < sql.size() && sql[end + 1] == c) {
            end += 2;
            continue;
          }
          break;
        }
        ++end;
      }
      end = std::min(end + 1, sql.size());
      out.append(sql, i, end - i);
      i = end;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const size_t end = std::min(sql.find('\n', i), sql.size());
      out.append(sql, i, end - i);
      i = end;
    } else if (c == '?') {
      size_t end = i + 1;
      while (end < sql.size() && std::isdigit(static_cast<unsigned char>(sql[end])) != 0) ++end;
      int n = 0;
      if (end > i + 1) {
        n = std::stoi(sql.substr(i + 1, end - i - 1));
      } else {
        n = highest + 1;
      }
      highest = std::max(highest, n);
      absl::StrAppend(&out, "$", n);
      i = end;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

}  // namespace capplan::store
