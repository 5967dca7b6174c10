// ImportBenchmark's conversion: the request's file, read by its format's reader
// (core/bench_import), and the request's own fields, to benchmark rows.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "capplan/v1/admin.pb.h"
#include "server/store/catalog.h"

namespace capplan::server {

// The most a file may hold (the request is bounded to 4 MiB as a whole).
inline constexpr size_t kMaxBenchmarkFileBytes = 3u << 20;

// One row per measured run: one for a vLLM result, an MLPerf summary or a training log, one
// per line of an SGLang JSONL file. InvalidArgument naming the field: the file's key or line
// under "content" ("content.request_rate", "content line 3.completed"), or the request's
// field a row needs and the file lacks ("sequence_tokens", "serving_engine").
absl::StatusOr<std::vector<store::BenchmarkRow>> BenchmarkRowsFromImport(const capplan::v1::ImportBenchmarkRequest& req,
                                                                         const store::CatalogSnapshot& catalog);

}  // namespace capplan::server
