// The workload flags that plan, compare and tco share: the model (by catalog
// name or from a JSON file), training and serving settings, each mapped onto
// the API's workload messages.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "capplan/v1/planner.pb.h"
#include "client/cli/flag_parser.h"

namespace capplan::cli {

struct ModelFlags {
  std::string name;       // --model
  std::string file;       // --model_file: a ModelArchitecture in protobuf JSON
  std::string hf_config;  // --hf_config: a Hugging Face config.json, sent as published
};

struct TrainingFlags {
  ModelFlags model;
  v1::TrainingWorkload workload;  // every field but the model
  bool flash_attention = true;
};

struct ServingFlags {
  ModelFlags model;
  v1::ServingWorkload workload;
  double ttft_ms = 0;
  double tpot_ms = 0;
  double e2e_ms = 0;
  bool batch_arrives_at_once = false;
  std::string engine_version;
};

void AddModelFlags(FlagSet* flags, ModelFlags* model);
void AddTrainingFlags(FlagSet* flags, TrainingFlags* training);
void AddServingFlags(FlagSet* flags, ServingFlags* serving);

// True when --model, --model_file or --hf_config was given.
bool HasModel(const ModelFlags& model);

// The workload for the request: exactly one of --model, --model_file and --hf_config is
// required.
absl::Status BuildTraining(const TrainingFlags& flags, v1::TrainingWorkload* out);
absl::Status BuildServing(const ServingFlags& flags, v1::ServingWorkload* out);

// The workload half of a "training|serving" command (plan, compare).
struct WorkloadFlags {
  bool serving = false;
  TrainingFlags training;
  ServingFlags serving_flags;
};

// Adds the flags of `kind` ("training" or "serving"); false for any other kind.
bool AddWorkloadFlags(const std::string& kind, FlagSet* flags, WorkloadFlags* w);

// Sets the request's training or serving workload (PlanRequest,
// CompareRequest).
template <typename Request>
absl::Status BuildWorkload(const WorkloadFlags& w, Request* request) {
  return w.serving ? BuildServing(w.serving_flags, request->mutable_serving())
                   : BuildTraining(w.training, request->mutable_training());
}

}  // namespace capplan::cli
