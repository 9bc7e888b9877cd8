/// A small HTTP/1.1 server on 127.0.0.1 for transport tests: each request is answered by a
/// handler, which can also misbehave the ways real servers and networks do — answer late, stall
/// after the headers, cut the connection in the middle of a body. Connections are kept alive
/// (one thread each); it counts requests, connections and the most requests in flight at once.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hzio::testing {

struct ScriptedRequest {
  std::string method, target;              // "GET", "/path?query"
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct ScriptedReply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int delay_ms = 0;               // wait before answering
  long cut_after_body_bytes = -1;  // >= 0: send the headers (with the full Content-Length) and this
                                   // many body bytes, then close the connection
  int stall_ms = 0;               // > 0: send the headers, then nothing for this long, then close
};

class ScriptedHttpServer {
 public:
  using Handler = std::function<ScriptedReply(const ScriptedRequest&)>;
  explicit ScriptedHttpServer(Handler handler);
  ~ScriptedHttpServer();
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  int port() const { return port_; }
  std::string Url(const std::string& path) const;  // "http://127.0.0.1:PORT" + path
  int requests() const { return requests_; }
  int connections() const { return connections_; }
  int max_in_flight() const { return max_in_flight_; }
  std::vector<ScriptedRequest> seen() const;

 private:
  void Accept();
  void Serve(int fd);
  void Finish(int fd);  // forgets and closes a client connection

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0}, connections_{0}, in_flight_{0}, max_in_flight_{0};
  mutable std::mutex mu_;
  std::vector<ScriptedRequest> seen_;
  std::vector<int> client_fds_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace hzio::testing
