// The strict CSV reader and the price import's checks: every malformed or contradictory
// file is refused with the row (and line) named, and nothing is written.
#include "server/store/price_csv.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "absl/strings/str_cat.h"
#include "server/store/catalog_store.h"
#include "server/store/csv.h"
#include "temp_store.h"

namespace capplan::store {
namespace {

using Rows = std::vector<std::vector<std::string>>;

constexpr char kHeader[] = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n";

TEST(StrictCsvTest, StrayQuoteInAnUnquotedFieldIsAnErrorNotAMergedRow) {
  // Before: the stray quote opened a quoted field that swallowed the next two lines.
  absl::StatusOr<Rows> rows = ParseCsv("a,b\nx\"y,1\nc,2\nd,3\n");
  ASSERT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rows.status().message().find("row 2 (line 2)"), std::string::npos) << rows.status();
  EXPECT_NE(rows.status().message().find("quote inside an unquoted field"), std::string::npos);
}

TEST(StrictCsvTest, TextAfterAClosingQuoteIsAnError) {
  absl::StatusOr<Rows> rows = ParseCsv("a,b\n\"x\"y,1\n");
  ASSERT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rows.status().message().find("after the closing quote"), std::string::npos) << rows.status();
}

TEST(StrictCsvTest, BomCrlfAndLfAreAccepted) {
  absl::StatusOr<Rows> rows = ParseCsv("\xEF\xBB\xBFName,v\r\n\"a,\"\"b\"\"\",1\nc,2");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(*rows, (Rows{{"Name", "v"}, {"a,\"b\"", "1"}, {"c", "2"}}));
}

TEST(StrictCsvTest, BoundsOnRowsColumnsAndFieldLength) {
  std::string many;
  for (int i = 0; i < 200001; ++i) many += "a\n";
  absl::StatusOr<Rows> rows = ParseCsv(many);
  EXPECT_EQ(rows.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(rows.status().message().find("more than 200000 rows"), std::string::npos) << rows.status();
  rows = ParseCsv(std::string(65, ','));
  EXPECT_NE(rows.status().message().find("more than 64 columns"), std::string::npos) << rows.status();
  rows = ParseCsv("a,b\nx," + std::string(257, 'y') + "\n");
  EXPECT_NE(rows.status().message().find("row 2 (line 2): column 2 is longer than 256 bytes"), std::string::npos)
      << rows.status();
}

class PriceImportTest : public TempStoreTest {
 protected:
  // Imports `rows` under kHeader; expects nothing written whenever it fails.
  absl::StatusOr<CsvImportResult> Import(const std::string& rows) {
    const int64_t v0 = store_->Snapshot()->catalog_version;
    absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv({"ops", "ImportPricesCsv"}, "aws", kHeader + rows,
                                                                {"test", "2025-11-01", ""}, 1761955200);
    if (!r.ok() || !r->errors.empty()) {
      EXPECT_EQ(store_->Snapshot()->catalog_version, v0);
    }
    return r;
  }

  // The one row error the import reported, as "row N Field: message".
  static std::string OnlyError(const absl::StatusOr<CsvImportResult>& r) {
    if (!r.ok()) return std::string(r.status().message());
    if (r->errors.size() != 1) return absl::StrCat(r->errors.size(), " errors");
    return absl::StrCat("row ", r->errors[0].row, " ", r->errors[0].field, ": ", r->errors[0].message);
  }
};

TEST_F(PriceImportTest, NanInfHexAndExponentAreNotNumbers) {
  for (const char* bad : {"nan", "inf", "-Infinity", "0x10", "1e3", "1e400", "12abc"}) {
    absl::StatusOr<CsvImportResult> r = Import(absl::StrCat("g6.xlarge,L4,1,4,16,", bad, ",,us-east-1\n"));
    EXPECT_NE(OnlyError(r).find("row 2 Price: must be a plain decimal in [0, 10000]"), std::string::npos)
        << bad << ": " << OnlyError(r);
  }
  // An empty price is its own reason: the catalog publishes none for the offer.
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,1,4,16,,,us-east-1\n")).find("row 2 Price: empty"), std::string::npos);
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,0x4,4,16,1.0,,us-east-1\n")).find("row 2 AcceleratorCount"),
            std::string::npos);
}

TEST_F(PriceImportTest, OutOfRangeValuesNameTheFieldAndRange) {
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,1,4,16,10000.5,,us-east-1\n"))
                .find("row 2 Price: must be a plain decimal in [0, 10000]"),
            std::string::npos);
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,1,4,99999,1,,us-east-1\n")).find("row 2 MemoryGiB"), std::string::npos);
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,1,4,16,1,-2,us-east-1\n")).find("row 2 SpotPrice"), std::string::npos);
  EXPECT_NE(OnlyError(Import("g6.xlarge,L4,1.5,4,16,1,,us-east-1\n")).find("whole number"), std::string::npos);
}

TEST_F(PriceImportTest, ConflictingDuplicateOfferNamesBothRowsButZonesWithOnePriceAreFine) {
  std::string conflict =
      OnlyError(Import("g6.xlarge,L4,1,4,16,0.80,,us-east-1\n"
                       "g6.xlarge,L4,1,4,16,0.95,,us-east-1\n"));
  EXPECT_NE(conflict.find("rows 2 and 3"), std::string::npos) << conflict;
  absl::StatusOr<CsvImportResult> zones = Import(
      "g6.xlarge,L4,1,4,16,0.80,0.3,us-east-1\n"
      "g6.xlarge,L4,1,4,16,0.80,0.2,us-east-1\n");
  ASSERT_TRUE(zones.ok()) << zones.status();
  EXPECT_TRUE(zones->errors.empty()) << OnlyError(zones);
  EXPECT_EQ(zones->rows_imported, 1);
}

TEST_F(PriceImportTest, OverlongOrControlCharacterTextIsRefused) {
  EXPECT_NE(OnlyError(Import(std::string(129, 'x') + ",L4,1,4,16,1,,us-east-1\n"))
                .find("row 2 InstanceType: must be at most 128 bytes"),
            std::string::npos);
  // The field bound of the reader itself.
  EXPECT_NE(OnlyError(Import(std::string(300, 'x') + ",L4,1,4,16,1,,us-east-1\n")).find("longer than 256 bytes"),
            std::string::npos);
  EXPECT_NE(OnlyError(Import("\"g6\nxlarge\",L4,1,4,16,1,,us-east-1\n")).find("control characters"), std::string::npos);
}

TEST_F(PriceImportTest, StrayQuoteRefusesTheWholeImport) {
  absl::StatusOr<CsvImportResult> r = Import(
      "test.xlarge,L4,1,4,16,0.8,,us-east-1\n"
      "g6.2x\"large,L4,1,8,32,0.9,,us-east-1\n"
      "g6.4xlarge,L4,1,16,64,1.3,,us-east-1\n");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("row 3 (line 3)"), std::string::npos) << r.status();
  EXPECT_EQ(store_->Snapshot()->FindInstance("aws", "test.xlarge", "us-east-1"), nullptr);
}

TEST_F(PriceImportTest, BomAtTheStartOfTheFileIsIgnored) {
  absl::StatusOr<CsvImportResult> r = store_->ImportPricesCsv(
      {"ops", "ImportPricesCsv"}, "aws", std::string("\xEF\xBB\xBF") + kHeader + "g6.xlarge,L4,1,4,16,0.8,,us-east-1\n",
      {"test", "2025-11-01", ""}, 1761955200);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->errors.empty()) << OnlyError(r);
  EXPECT_NE(store_->Snapshot()->FindInstance("aws", "g6.xlarge", "us-east-1"), nullptr);
}

TEST_F(PriceImportTest, AdminWritesBoundTextRejectNanAndCheckDates) {
  const WriteContext ops{"ops", "test"};
  BenchmarkRow b;
  b.gpu_name = "L4";
  b.model_name = "Llama-3-8B";
  b.batch_size = 16;
  b.measured_value = std::numeric_limits<double>::quiet_NaN();
  b.source = {"ops load test", "2025-11-20", ""};
  absl::StatusOr<WriteResult> w = store_->RecordBenchmark(ops, b);
  EXPECT_NE(w.status().message().find("benchmark.measured_value"), std::string::npos) << w.status();
  b.measured_value = 2.5;
  for (const char* date : {"abcd-ef-gh", "2025-02-30", "2025-13-01", "1900-01-01"}) {
    b.source.as_of_date = date;
    w = store_->RecordBenchmark(ops, b);
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << date;
    EXPECT_NE(w.status().message().find("benchmark.source.as_of_date: must be a date YYYY-MM-DD between"),
              std::string::npos)
        << w.status();
  }
  b.source.as_of_date = "2024-02-29";
  b.source.note = std::string(3000, 'n');
  w = store_->RecordBenchmark(ops, b);
  EXPECT_NE(w.status().message().find("benchmark.source.note: must be at most 2048 bytes"), std::string::npos)
      << w.status();
  b.source.note = "ok";
  b.source.citation = "line one\nline two";
  w = store_->RecordBenchmark(ops, b);
  EXPECT_NE(w.status().message().find("benchmark.source.citation: must not contain control characters"),
            std::string::npos)
      << w.status();
  PriceRow p;
  p.provider = "aws";
  p.instance_type = std::string(200, 't');
  p.region = "us-east-1";
  p.price_usd_per_hour = std::numeric_limits<double>::infinity();
  p.effective_unix_seconds = 1761955200;
  p.source = {"ticket", "2025-11-01", ""};
  EXPECT_NE(store_->SetPrice(ops, p).status().message().find("price.instance_type: must be at most 128 bytes"),
            std::string::npos);
  p.instance_type = "p5.48xlarge";
  EXPECT_NE(store_->SetPrice(ops, p).status().message().find("price.price_usd_per_hour: must be in [0, 10000]"),
            std::string::npos);
}

}  // namespace
}  // namespace capplan::store
