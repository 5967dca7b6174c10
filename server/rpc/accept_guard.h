// Keeps the gRPC listener alive when descriptors run out, and caps concurrent connections.
//
// gRPC 1.51 (Debian 12) stops accepting for good the first time accept4 fails with EMFILE:
// a burst of idle connections up to the descriptor limit locks the server out while it stays
// alive. This guard interposes accept4 for the whole process (the executable's definition
// wins over libc's for every shared library that calls it) and:
//   - on EMFILE/ENFILE, frees a reserve descriptor, takes the pending connection off the
//     queue and closes it, then reports EAGAIN, which gRPC treats as "try again later";
//   - sheds any connection whose descriptor number reaches the ceiling (descriptors are
//     allocated lowest first, so the number is a count of what is open), which caps
//     concurrent connections and keeps headroom for the database, logs and /metrics.
// Until Install is called, accept4 behaves exactly as libc's.
#pragma once

#include <cstdint>

#include "absl/status/status.h"

namespace capplan::server {

struct AcceptGuardOptions {
  // Connections beyond the descriptors open at start-up; 0: only the descriptor limit.
  int max_connections = 4096;
  // Descriptors kept free below the limit for everything that is not a connection.
  int headroom = 64;
};

// Raises the soft descriptor limit to the hard one, opens the reserve descriptor and sets
// the ceiling. Fails only when no reserve descriptor can be opened. Idempotent.
absl::Status InstallAcceptGuard(const AcceptGuardOptions& options);

// Connections shed since start (over the ceiling, or while descriptors were exhausted).
int64_t AcceptGuardShedConnections();

}  // namespace capplan::server
