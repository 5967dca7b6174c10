#include "server/http/socket_deadlines.h"

#include <sys/socket.h>

namespace capplan::server::http {

SocketDeadlines::SocketDeadlines() : thread_([this] { Run(); }) {}

SocketDeadlines::~SocketDeadlines() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  thread_.join();
}

uint64_t SocketDeadlines::Arm(int fd, int how, Clock::time_point deadline) {
  absl::MutexLock lock(&mu_);
  const uint64_t id = next_id_++;
  const bool earliest = armed_.empty() || deadline < armed_.begin()->first.first;
  armed_.emplace(std::make_pair(deadline, id), Armed{fd, how});
  by_id_.emplace(id, std::make_pair(deadline, false));
  if (earliest) cv_.SignalAll();
  return id;
}

bool SocketDeadlines::Disarm(uint64_t id) {
  absl::MutexLock lock(&mu_);
  const auto it = by_id_.find(id);
  if (it == by_id_.end()) return false;
  const bool fired = it->second.second;
  if (!fired) armed_.erase(std::make_pair(it->second.first, id));
  by_id_.erase(it);
  return fired;
}

void SocketDeadlines::Run() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    if (armed_.empty()) {
      cv_.Wait(&mu_);
      continue;
    }
    const auto first = armed_.begin();
    if (Clock::now() < first->first.first) {
      // A copy: wait_until reads the deadline again after waking, when the entry may be gone
      // (another thread disarms it while the lock is released).
      const Clock::time_point when = first->first.first;
      cv_.WaitWithTimeout(&mu_, absl::FromChrono(when - Clock::now()));
      continue;
    }
    // Under the lock: the owner cannot disarm and close the descriptor meanwhile.
    shutdown(first->second.fd, first->second.how);
    by_id_[first->first.second].second = true;
    armed_.erase(first);
  }
}

}  // namespace capplan::server::http
