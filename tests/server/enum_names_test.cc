// Each enum stored or sent by name is spelled once (core/enum_names.h): the database's CHECK
// lists (SQLite and PostgreSQL migrations, the last definition of each column) and the API's
// enums must list exactly the table's names. A new value added in one place fails here until
// the others follow.
#include "core/enum_names.h"

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "capplan/v1/catalog.pb.h"
#include "capplan/v1/planner.pb.h"

namespace capplan::core {
namespace {

using NameSet = std::set<std::string>;

template <typename E>
NameSet TableNames() {
  NameSet out;
  for (const char* n : EnumNames<E>::kNames) out.insert(n);
  return out;
}

// Column -> the quoted names of its last `CHECK (column IN ('a', 'b'))` across the migration
// files of one folder, applied in file-name order as the runner does.
std::map<std::string, NameSet> CheckLists(const std::string& folder) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    if (e.path().extension() == ".sql") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  const std::regex check(R"(CHECK\s*\(\s*(\w+)\s+IN\s*\(([^)]*)\)\s*\))");
  const std::regex quoted("'([^']*)'");
  std::map<std::string, NameSet> out;
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    const std::string sql = text.str();
    for (std::sregex_iterator it(sql.begin(), sql.end(), check), end; it != end; ++it) {
      const std::string list = (*it)[2];
      NameSet names;
      for (std::sregex_iterator q(list.begin(), list.end(), quoted); q != end; ++q) names.insert((*q)[1]);
      if (!names.empty()) out[(*it)[1]] = names;  // numeric lists (0, 1) are flags, not enums
    }
  }
  return out;
}

// The stored enum columns and the table each must match; a new quoted CHECK list on a column
// missing here fails ChecksNameOnlyKnownEnumColumns.
std::map<std::string, NameSet> ExpectedColumns() {
  return {{"interconnect_kind", TableNames<Interconnect>()}, {"intra_link_kind", TableNames<Interconnect>()},
          {"network_kind", TableNames<NetworkKind>()},       {"kind", TableNames<PriceKind>()},
          {"workload", TableNames<WorkloadKind>()},          {"precision", TableNames<Precision>()},
          {"training_method", TableNames<TrainingMethod>()}, {"measured_unit", TableNames<MeasuredUnit>()},
          {"figure", TableNames<BenchmarkFigure>()},         {"serving_engine", TableNames<ServingEngine>()}};
}

void ExpectChecksMatch(const std::string& folder) {
  const std::map<std::string, NameSet> found = CheckLists(folder);
  for (const auto& [column, names] : ExpectedColumns()) {
    SCOPED_TRACE(folder + ": " + column);
    auto it = found.find(column);
    ASSERT_NE(it, found.end()) << "no CHECK list for the column";
    EXPECT_EQ(it->second, names);
  }
  for (const auto& [column, names] : found) {
    EXPECT_TRUE(ExpectedColumns().count(column))
        << folder << ": CHECK list on " << column << " has no name table here; add its enum to ExpectedColumns";
  }
}

TEST(EnumNamesTest, SqliteCheckListsMatchTheTables) { ExpectChecksMatch(CAPPLAN_SOURCE_DIR "/migrations"); }

TEST(EnumNamesTest, PostgresqlCheckListsMatchTheTables) {
  // PostgreSQL runs the SQLite file respelled (quoted lists unchanged), or its own file of
  // the same number where one exists: the lists it ends with are both folders merged by version.
  std::map<std::string, NameSet> merged = CheckLists(CAPPLAN_SOURCE_DIR "/migrations");
  for (auto& [column, names] : CheckLists(CAPPLAN_SOURCE_DIR "/migrations/postgresql")) merged[column] = names;
  for (const auto& [column, names] : ExpectedColumns()) {
    SCOPED_TRACE(column);
    ASSERT_TRUE(merged.count(column));
    EXPECT_EQ(merged[column], names);
  }
}

template <typename E>
void ExpectProtoMatches() {
  const std::string full = EnumNames<E>::kProtoEnum;
  SCOPED_TRACE(full);
  const google::protobuf::EnumDescriptor* d =
      google::protobuf::DescriptorPool::generated_pool()->FindEnumTypeByName(full);
  ASSERT_NE(d, nullptr);
  const auto& names = EnumNames<E>::kNames;
  ASSERT_EQ(d->value_count(), static_cast<int>(names.size()) + 1) << "UNSPECIFIED plus one value per name";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const google::protobuf::EnumValueDescriptor* v = d->FindValueByNumber(static_cast<int>(i) + 1);
    ASSERT_NE(v, nullptr) << names[i];
    EXPECT_EQ(v->name(), std::string(EnumNames<E>::kProtoPrefix) + absl::AsciiStrToUpper(names[i]));
  }
}

TEST(EnumNamesTest, ApiEnumsMirrorTheTablesAtValuePlusOne) {
  ExpectProtoMatches<Precision>();
  ExpectProtoMatches<Interconnect>();
  ExpectProtoMatches<NetworkKind>();
  ExpectProtoMatches<PriceKind>();
  ExpectProtoMatches<WorkloadKind>();
  ExpectProtoMatches<BenchmarkFigure>();
  ExpectProtoMatches<TrainingMethod>();
  ExpectProtoMatches<ServingEngine>();
}

TEST(EnumNamesTest, NamesRoundTripAndUnknownNamesAreRefused) {
  EXPECT_STREQ(EnumName(Precision::kBf16), "bf16");
  EXPECT_EQ(EnumFromName<PriceKind>("reserved_3y"), PriceKind::kReserved3y);
  EXPECT_EQ(EnumFromName<ServingEngine>("llama_cpp"), ServingEngine::kLlamaCpp);
  EXPECT_FALSE(EnumFromName<NetworkKind>("token_ring").has_value());
  EXPECT_STREQ(EnumName(static_cast<Interconnect>(99)), "unknown");
}

}  // namespace
}  // namespace capplan::core
