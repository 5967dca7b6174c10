// libFuzzer target for ImportBenchmark's readers and conversion (server/api/bench_import_proto.h
// over core/bench_import): a measured-run file is untrusted text from a user's machine. The
// first byte picks the format, the rest is the file. Besides not crashing: every row an
// accepted file yields is one calibration can use (a positive, finite figure, GPUs in range,
// non-negative lengths and batch), since a row written here is read by the next Plan.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "server/api/bench_import_proto.h"
#include "server/store/catalog_store.h"

namespace {

namespace v1 = capplan::v1;

// The shipped catalog, opened once in a private temporary directory.
const capplan::store::CatalogSnapshot& Catalog() {
  static std::shared_ptr<const capplan::store::CatalogSnapshot> snap = [] {
    char tmpl[] = "/tmp/capplan-bench-fuzz-XXXXXX";
    const std::string dir = mkdtemp(tmpl);
    auto store = capplan::store::CatalogStore::Open({dir + "/c.db"});
    if (!store.ok()) std::abort();
    std::shared_ptr<const capplan::store::CatalogSnapshot> s = (*store)->Snapshot();
    store->reset();
    for (const char* f : {"/c.db", "/c.db-wal", "/c.db-shm"}) unlink((dir + f).c_str());
    rmdir(dir.c_str());
    return s;
  }();
  return *snap;
}

// Everything a file may lack, so that the readers' own checks are what the fuzzer reaches.
v1::ImportBenchmarkRequest Request(v1::BenchmarkFileFormat format, std::string content) {
  v1::ImportBenchmarkRequest r;
  r.set_format(format);
  r.set_content(std::move(content));
  r.set_gpu_name("A100-SXM4-80GB");
  r.set_gpu_count(8);
  r.set_model_name("Llama-2-7B");
  if (format == v1::BENCHMARK_FILE_FORMAT_MLPERF) r.set_serving_engine(v1::SERVING_ENGINE_VLLM);
  r.mutable_source()->set_citation("fuzz input");
  r.mutable_source()->set_as_of_date("2026-01-01");
  r.set_sequence_tokens(2048);
  r.set_output_tokens(128);
  r.set_global_batch_sequences(64);
  return r;
}

void Check(bool ok, const char* what, const capplan::store::BenchmarkRow& row) {
  if (ok) return;
  std::fprintf(stderr, "bench_import_fuzz: %s (value %g, gpus %d, batch %lld, tokens %lld/%lld)\n", what,
               row.measured_value, row.gpu_count, static_cast<long long>(row.batch_size),
               static_cast<long long>(row.sequence_tokens), static_cast<long long>(row.output_tokens));
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  constexpr int kFormats = 5;  // VLLM .. MEGATRON
  const auto format = static_cast<v1::BenchmarkFileFormat>(1 + static_cast<unsigned char>(data[0] - '0') % kFormats);
  const v1::ImportBenchmarkRequest req =
      Request(format, std::string(reinterpret_cast<const char*>(data + 1), size - 1));
  auto rows = capplan::server::BenchmarkRowsFromImport(req, Catalog());
  if (!rows.ok()) return 0;
  for (const capplan::store::BenchmarkRow& row : *rows) {
    Check(std::isfinite(row.measured_value) && row.measured_value > 0, "figure not positive and finite", row);
    Check(row.gpu_count >= 1 && row.gpu_count <= 65536, "GPU count out of range", row);
    Check(row.batch_size >= 0 && row.sequence_tokens >= 0 && row.output_tokens >= 0, "negative size", row);
  }
  return 0;
}
