// Private to the CLI's admin group: the admin client, the source flags every catalog-row
// write shares, and the row writes (admin_rows.cc) that admin.cc dispatches to.
#pragma once

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/cli/common.h"

namespace capplan::cli {

// Built after the flags are parsed, since global flags may follow the command; the token is
// read only then, so --help works without one.
absl::StatusOr<std::unique_ptr<client::Client>> AdminClient(const GlobalOptions& global);

// --citation, --as_of_date, --note and --request_id.
struct RowSourceFlags {
  std::string citation, as_of_date, note, request_id;
};
void AddRowSourceFlags(FlagSet* flags, RowSourceFlags* s);
void SetSource(const RowSourceFlags& s, v1::Source* out);

// Sends `request` through `call` with the admin client and prints the new catalog version.
template <typename Request, typename Call>
int Send(const GlobalOptions& global, const Request& request, Call call, const std::string& done) {
  absl::StatusOr<std::unique_ptr<client::Client>> c = AdminClient(global);
  if (!c.ok()) return Fail(c.status());
  absl::StatusOr<v1::WriteResponse> resp = call(**c, request);
  if (!resp.ok()) return Fail(resp.status());
  if (global.json) return PrintJson(*resp), 0;
  std::cout << done << (resp->id() > 0 ? absl::StrCat(" (id ", resp->id(), ")") : "") << "; catalog version "
            << resp->catalog_version() << "\n";
  return 0;
}

int UpsertFabric(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteFabric(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertElectricity(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteElectricity(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertInstance(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertGpu(const std::vector<std::string>& args, GlobalOptions* global);
int RecordBenchmark(const std::vector<std::string>& args, GlobalOptions* global);
// admin_import_benchmark.cc: admin import-benchmark.
int ImportBenchmark(const std::vector<std::string>& args, GlobalOptions* global);
// admin_deletes.cc: admin delete-gpu|delete-instance|delete-benchmark.
int DeleteGpu(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteInstance(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteBenchmark(const std::vector<std::string>& args, GlobalOptions* global);
// admin_model.cc: admin upsert-model|delete-model.
int UpsertModel(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteModel(const std::vector<std::string>& args, GlobalOptions* global);
// tco_scenarios.cc: admin upsert-tco-scenario|delete-tco-scenario.
int UpsertTcoScenario(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteTcoScenario(const std::vector<std::string>& args, GlobalOptions* global);

// Prints an import's report (or its JSON); 3 when more than `max_skipped_fraction` of the
// importable GPU rows were skipped, else 0.
int ImportReport(const v1::ImportPricesCsvResponse& response, double max_skipped_fraction, bool json);

}  // namespace capplan::cli
