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
// civetweb (the HTTP/JSON listener and prometheus-cpp's /metrics) calls accept, not accept4:
// the guard interposes it too, with the same shedding when descriptors run out (civetweb
// bounds its connection count itself: threads plus queue), and on those listeners can cap the
// connections one client address holds at once (civetweb gives every open connection a
// worker thread, so one client holding them all locks everyone else out).
// Until Install is called, accept4 and accept behave exactly as libc's.
#pragma once

#include <cstdint>
#include <string>

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

// Records the connections accepted (by accept, civetweb's call) on the listener bound to local
// `port`, and caps those one client address may hold open at once: more are closed on accept
// and counted as shed (0: no cap). Works before or after InstallAcceptGuard.
void TrackConnections(int port, int max_per_client);
// Forgets `port` (its listener has closed).
void UntrackConnections(int port);
// The server of tracked listener `port` is about to close its connection from `client_address`
// (numeric, as civetweb reports it) and `client_port`: it no longer counts. Called on the
// thread that owns the connection, before it closes the descriptor (civetweb's
// connection_close callback: http::TrackedConnectionCallbacks), so that the guard never looks
// at a descriptor another thread may be closing.
void ConnectionClosing(int port, const std::string& client_address, int client_port);

// The descriptor of the connection accepted on local `port` (a tracked listener) from `client_address` (numeric, as
// civetweb reports it) and `client_port`, while it is open; -1 otherwise. For bounding what civetweb does not: the time
// one connection may take to send its body or read its answer (see server/http/socket_deadlines.h).
int AcceptedConnection(int port, const std::string& client_address, int client_port);

// Connections shed since start (over the ceiling or a per-client cap, or while descriptors
// were exhausted).
int64_t AcceptGuardShedConnections();

}  // namespace capplan::server
