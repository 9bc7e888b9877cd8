/// The HTTP(S) server: binds listeners (127.0.0.1 by default, port 0 = any free port; plain or
/// TLS), accepts connections up to a cap, runs the I/O threads and the worker pool. Signals:
/// SIGINT/SIGTERM stop it within the grace period whatever the workers do (replies in flight get
/// the grace period, then connections close; workers stuck in a read are abandoned), SIGHUP
/// reloads the configuration (datasets, users, access lists, limits) without dropping
/// connections: new requests use the new generation, those in flight finish with theirs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "handlers/server_context.h"

namespace hzio::server {

class HttpServer {
 public:
  explicit HttpServer(std::shared_ptr<ServerContext> context);
  ~HttpServer();

  /// Binds and listens (HTTPS when `tls` is given); throws hzio::Error naming the address.
  /// Returns the bound port. May be called several times (one listener each).
  int Bind(const std::string& host, int port, std::shared_ptr<boost::asio::ssl::context> tls = nullptr);

  /// Builds the next configuration generation from the current one (throws hzio::Error to refuse
  /// it: the current one stays).
  using Reloader = std::function<std::shared_ptr<ServerContext>(const ServerContext& current)>;
  /// Handles SIGINT/SIGTERM (stop) and SIGHUP (reload with `reload`; ignored when empty) from now
  /// on. Call before announcing the server, so no signal finds the default action.
  void HandleSignals(Reloader reload);

  /// Serves until Stop() or a stop signal.
  void Run();
  /// Run(), handling SIGINT/SIGTERM (no reload) first when `handle_signals` (embedding, tests).
  void Run(bool handle_signals) {
    if (handle_signals) HandleSignals({});
    Run();
  }
  /// Asks Run() to return (thread-safe).
  void Stop();
  /// Reloads now, as SIGHUP does (thread-safe); returns false when the new configuration was refused.
  bool Reload();
  /// After Run(): waits up to `seconds` for the workers to finish; false if some are still busy
  /// (stuck in a read): the caller then exits the process without waiting for them.
  bool JoinWorkers(double seconds);

  /// The configuration generation new requests use.
  std::shared_ptr<ServerContext> Current() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hzio::server
