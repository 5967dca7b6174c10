#include "client/loadgen_http.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace capplan::loadgen {

KeepAliveHttp::~KeepAliveHttp() { Close(); }

void KeepAliveHttp::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  buffer_.clear();
}

bool KeepAliveHttp::Connect() {
  const size_t colon = host_port_.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = host_port_.substr(0, colon);
  const std::string port = host_port_.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return false;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd_ >= 0 && connect(fd_, a->ai_addr, a->ai_addrlen) != 0) Close();
  }
  freeaddrinfo(found);
  if (fd_ < 0) return false;
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

int KeepAliveHttp::Call(const std::string& method, const std::string& path, const std::string& body) {
  if (fd_ < 0 && !Connect()) return 0;
  const std::string request =
      absl::StrCat(method, " ", path, " HTTP/1.1\r\nHost: ", host_port_,
                   "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      Close();
      return 0;
    }
    sent += static_cast<size_t>(n);
  }
  char chunk[65536];
  size_t head_end = std::string::npos;
  size_t length = 0;
  int status = 0;
  bool close_after = false;
  while (true) {
    if (head_end == std::string::npos && (head_end = buffer_.find("\r\n\r\n")) != std::string::npos) {
      const std::string head = absl::AsciiStrToLower(buffer_.substr(0, head_end));
      status = std::atoi(head.c_str() + head.find(' ') + 1);
      const size_t cl = head.find("\r\ncontent-length:");
      if (cl == std::string::npos) {
        Close();
        return 0;
      }
      length = static_cast<size_t>(std::strtoull(head.c_str() + cl + 17, nullptr, 10));
      close_after = head.find("\r\nconnection: close") != std::string::npos;
    }
    if (head_end != std::string::npos && buffer_.size() >= head_end + 4 + length) {
      buffer_.erase(0, head_end + 4 + length);
      if (close_after) Close();
      return status;
    }
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      Close();
      return 0;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace capplan::loadgen
