// Deadlines on civetweb connections. civetweb bounds a read of a request body only by the
// time between two bytes (request_timeout_ms), so a client sending one byte every few seconds
// holds a worker thread for as long as it likes, and one that never reads its answer holds it
// while the write waits. At a deadline this shuts the connection's socket down, which ends
// the worker's blocked read or write at once (the worker then answers or closes as usual).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace capplan::server::http {

class SocketDeadlines {
 public:
  using Clock = std::chrono::steady_clock;

  SocketDeadlines();   // starts the timer thread
  ~SocketDeadlines();  // stops it; deadlines still armed never fire
  SocketDeadlines(const SocketDeadlines&) = delete;
  SocketDeadlines& operator=(const SocketDeadlines&) = delete;

  // Calls shutdown(fd, how) at `deadline` unless Disarm(id) comes first. The caller keeps
  // `fd` open until it has disarmed it.
  uint64_t Arm(int fd, int how, Clock::time_point deadline) ABSL_LOCKS_EXCLUDED(mu_);
  // Whether the deadline had fired.
  bool Disarm(uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Armed {
    int fd;
    int how;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  absl::CondVar cv_;  // an earlier deadline was armed, or stop_ was set
  std::map<std::pair<Clock::time_point, uint64_t>, Armed> armed_ ABSL_GUARDED_BY(mu_);
  // Every armed id: its deadline, and whether it has fired (kept until disarmed).
  std::map<uint64_t, std::pair<Clock::time_point, bool>> by_id_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Arms a deadline for one scope (a no-op for fd < 0).
class ScopedSocketDeadline {
 public:
  ScopedSocketDeadline(SocketDeadlines* deadlines, int fd, int how, SocketDeadlines::Clock::time_point deadline)
      : deadlines_(fd >= 0 ? deadlines : nullptr), id_(deadlines_ ? deadlines_->Arm(fd, how, deadline) : 0) {}
  ~ScopedSocketDeadline() { Disarm(); }
  ScopedSocketDeadline(const ScopedSocketDeadline&) = delete;
  ScopedSocketDeadline& operator=(const ScopedSocketDeadline&) = delete;
  // Whether the deadline fired (once disarmed, it cannot).
  bool Disarm() {
    if (deadlines_ != nullptr) fired_ = deadlines_->Disarm(id_);
    deadlines_ = nullptr;
    return fired_;
  }

 private:
  SocketDeadlines* deadlines_;
  uint64_t id_;
  bool fired_ = false;
};

}  // namespace capplan::server::http
