// capplan-loadgen's open watches: N WatchPlan streams held open (gRPC client callback
// reactors, no thread each) while the measured load runs, spread over connections so that
// the server's per-connection stream limit (128) does not queue them.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "capplan/v1/planner.grpc.pb.h"

namespace capplan::loadgen {

class WatchCrowd {
 public:
  // Opens `count` watches of `requests` (watch i watches requests[i % size]) on `server`,
  // `per_connection` streams per connection, and waits (up to 30 s) for every initial answer.
  WatchCrowd(const std::string& server, int count, int per_connection,
             const std::vector<capplan::v1::WatchPlanRequest>& requests);
  ~WatchCrowd();  // cancels every watch and waits for each to end
  WatchCrowd(const WatchCrowd&) = delete;
  WatchCrowd& operator=(const WatchCrowd&) = delete;

  int open() const { return open_.load(); }            // streams that got their first answer
  int64_t updates() const { return updates_.load(); }  // messages received, initial ones included
  int failed() const { return failed_.load(); }        // streams that ended with an error

 private:
  class Watch;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<capplan::v1::PlannerService::Stub>> stubs_;
  std::vector<std::unique_ptr<Watch>> watches_;
  std::atomic<int> open_{0};
  std::atomic<int64_t> updates_{0};
  std::atomic<int> failed_{0};
};

}  // namespace capplan::loadgen
