// The installed client library's smoke test: `consumer HOST:PORT` asks the server for its
// health and a serving plan through capplan::client::Client, and exits 0 only when both
// answer (SERVING, and at least one option).
#include <cstdio>

#include "client/client.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s HOST:PORT\n", argv[0]);
    return 2;
  }
  capplan::client::ClientOptions options;
  options.server = argv[1];
  capplan::client::Client client(options);

  absl::StatusOr<std::string> health = client.Health();
  if (!health.ok()) {
    std::fprintf(stderr, "Health: %s\n", health.status().ToString().c_str());
    return 1;
  }
  std::printf("health: %s\n", health->c_str());

  // The README's serving example (Llama-2-7B at 35 req/s within 50 ms per output token).
  capplan::v1::PlanRequest request;
  capplan::v1::ServingWorkload* serving = request.mutable_serving();
  serving->set_model_name("Llama-2-7B");
  serving->set_weight_precision(capplan::v1::PRECISION_FP16);
  serving->set_kv_cache_precision(capplan::v1::PRECISION_FP16);
  serving->set_prompt_tokens(512);
  serving->set_output_tokens(128);
  serving->set_requests_per_second(35);
  serving->set_tpot_slo_seconds(0.050);
  request.set_top_k(1);
  absl::StatusOr<capplan::v1::PlanResponse> plan = client.Plan(request);
  if (!plan.ok()) {
    std::fprintf(stderr, "Plan: %s\n", plan.status().ToString().c_str());
    return 1;
  }
  if (plan->options_size() == 0) {
    std::fprintf(stderr, "Plan: no options\n");
    return 1;
  }
  const capplan::v1::PlanOption& best = plan->options(0);
  std::printf("plan: %d x %s (catalog version %lld)\n", best.gpu_count(), best.gpu_name().c_str(),
              static_cast<long long>(plan->catalog_version()));
  return *health == "SERVING" ? 0 : 1;
}
