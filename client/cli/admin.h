// Private to the CLI's admin group: the admin client, the source flags every catalog-row
// write shares, and the row writes (admin_rows.cc) that admin.cc dispatches to.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

int UpsertFabric(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteFabric(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertElectricity(const std::vector<std::string>& args, GlobalOptions* global);
int DeleteElectricity(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertInstance(const std::vector<std::string>& args, GlobalOptions* global);
int UpsertGpu(const std::vector<std::string>& args, GlobalOptions* global);
int RecordBenchmark(const std::vector<std::string>& args, GlobalOptions* global);

// Prints an import's report (or its JSON); 3 when more than `max_skipped_fraction` of the
// importable GPU rows were skipped, else 0.
int ImportReport(const v1::ImportPricesCsvResponse& response, double max_skipped_fraction, bool json);

}  // namespace capplan::cli
