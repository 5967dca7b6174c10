// capplan-loadgen's HTTP/1.1 client: one keep-alive connection, one request at a time.
// Just enough HTTP for the load generator (Content-Length bodies, no chunking, no TLS).
#pragma once

#include <string>

namespace capplan::loadgen {

class KeepAliveHttp {
 public:
  explicit KeepAliveHttp(std::string host_port) : host_port_(std::move(host_port)) {}
  ~KeepAliveHttp();
  KeepAliveHttp(const KeepAliveHttp&) = delete;
  KeepAliveHttp& operator=(const KeepAliveHttp&) = delete;

  // Sends one request and reads the whole answer; (re)connects as needed. The HTTP status,
  // or 0 when the connection failed.
  int Call(const std::string& method, const std::string& path, const std::string& body);

 private:
  bool Connect();
  void Close();

  std::string host_port_;
  int fd_ = -1;
  std::string buffer_;  // bytes read past the last answer
};

}  // namespace capplan::loadgen
