#include "support/scripted_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>

namespace hzio::testing {

namespace {

bool SendAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 304: return "Not Modified";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 412: return "Precondition Failed";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

}  // namespace

ScriptedHttpServer::ScriptedHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket() failed");
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0)
    throw std::runtime_error("bind/listen on 127.0.0.1 failed");
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

ScriptedHttpServer::~ScriptedHttpServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (std::thread& t : threads_) t.join();
}

std::string ScriptedHttpServer::Url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<ScriptedRequest> ScriptedHttpServer::seen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_;
}

void ScriptedHttpServer::Accept() {
  while (!stopping_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ++connections_;
    std::lock_guard<std::mutex> lock(mu_);
    client_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void ScriptedHttpServer::Serve(int fd) {
  std::string buffer;
  char chunk[65536];
  auto fill = [&](size_t want) {  // reads until `buffer` holds `want` bytes
    while (buffer.size() < want) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    return true;
  };
  while (!stopping_) {
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) return Finish(fd);
      buffer.append(chunk, static_cast<size_t>(n));
    }
    ScriptedRequest req;
    const std::string head = buffer.substr(0, end);
    buffer.erase(0, end + 4);
    size_t line_end = head.find("\r\n");
    const std::string request_line = head.substr(0, line_end);
    const size_t s1 = request_line.find(' '), s2 = request_line.rfind(' ');
    req.method = request_line.substr(0, s1);
    req.target = request_line.substr(s1 + 1, s2 - s1 - 1);
    for (size_t pos = line_end; pos != std::string::npos && pos < head.size();) {
      const size_t next = head.find("\r\n", pos + 2);
      const std::string line = head.substr(pos + 2, (next == std::string::npos ? head.size() : next) - pos - 2);
      const size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
        size_t v = colon + 1;
        while (v < line.size() && line[v] == ' ') ++v;
        req.headers[name] = line.substr(v);
      }
      pos = next;
    }
    if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
      const size_t length = std::stoul(it->second);
      if (!fill(length)) break;
      req.body = buffer.substr(0, length);
      buffer.erase(0, length);
    }
    ++requests_;
    const int now = ++in_flight_;
    for (int seen = max_in_flight_; now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back(req);
    }
    const ScriptedReply reply = handler_(req);
    if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + Reason(reply.status) + "\r\n";
    bool has_length = false;
    for (const auto& [name, value] : reply.headers) {
      out += name + ": " + value + "\r\n";
      if (name == "Content-Length") has_length = true;
    }
    if (!has_length) out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
    out += "\r\n";
    bool keep = true;
    if (reply.stall_ms > 0) {
      SendAll(fd, out.data(), out.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(reply.stall_ms));
      keep = false;
    } else if (reply.cut_after_body_bytes >= 0) {
      out += reply.body.substr(0, static_cast<size_t>(reply.cut_after_body_bytes));
      SendAll(fd, out.data(), out.size());
      keep = false;
    } else {
      if (req.method != "HEAD") out += reply.body;
      keep = SendAll(fd, out.data(), out.size());
    }
    --in_flight_;
    if (!keep) break;
  }
  Finish(fd);
}

void ScriptedHttpServer::Finish(int fd) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    client_fds_.erase(std::remove(client_fds_.begin(), client_fds_.end(), fd), client_fds_.end());
  }
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

}  // namespace hzio::testing
