/// The HTTP server: binds (127.0.0.1 by default, port 0 = any free port), accepts connections up
/// to a cap, runs the I/O threads and the worker pool, and shuts down gracefully on Stop() or
/// SIGINT/SIGTERM (replies in flight are finished, then connections close).
#pragma once

#include <memory>
#include <string>

#include "handlers/server_context.h"

namespace hzio::server {

class HttpServer {
 public:
  explicit HttpServer(std::shared_ptr<ServerContext> context);
  ~HttpServer();

  /// Binds and listens; throws hzio::Error naming the address. Returns the bound port.
  int Bind(const std::string& host, int port);
  /// Serves until Stop() or, when `handle_signals`, SIGINT/SIGTERM.
  void Run(bool handle_signals);
  /// Asks Run() to return (thread-safe).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hzio::server
