/// State shared by the listeners and every session: the current configuration generation (a
/// SIGHUP swaps it; requests keep the one they started with), the worker pool that runs handlers
/// (block reads and decoding never run on I/O threads), the reply budget, counters of
/// connections, queued requests and busy workers, the access log and the live sessions (for
/// graceful shutdown).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include <boost/asio/thread_pool.hpp>

#include "handlers/server_context.h"
#include "http/access_log.h"
#include "http/reply_budget.h"

namespace hzio::server {

/// What the server can close on shutdown.
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  /// Finishes the replies in flight, then closes. Thread-safe.
  virtual void Shutdown() = 0;
};

struct SharedState {
  SharedState(std::shared_ptr<ServerContext> c, int worker_count)
      : context_(std::move(c)),
        options(context_->options),
        workers(worker_count),
        pool(worker_count),
        budget(context_->options.reply_budget_bytes) {
    if (context_->options.access_log) access_log = std::make_unique<AccessLog>(context_->options.access_log_file);
  }

  /// The configuration generation new requests use.
  std::shared_ptr<ServerContext> Current() const {
    std::lock_guard<std::mutex> lock(context_mutex_);
    return context_;
  }
  void Replace(std::shared_ptr<ServerContext> next) {
    std::lock_guard<std::mutex> lock(context_mutex_);
    context_ = std::move(next);
  }

  /// Values for /metrics and /api/v1/health sampled now.
  MetricsGauges Gauges() const;

  /// Whether new work is accepted (/health/ready); `why` says why not.
  bool Ready(std::string* why) const {
    if (stopping.load()) {
      *why = "shutting down";
      return false;
    }
    const int bound = 8 * workers;
    if (queued.load() > bound) {
      *why = std::to_string(queued.load()) + " requests wait for " + std::to_string(workers) + " workers";
      return false;
    }
    return true;
  }

 private:
  mutable std::mutex context_mutex_;
  std::shared_ptr<ServerContext> context_;

 public:
  /// The startup options: transport settings (limits, timeouts, TLS) are not reloaded.
  const ServerOptions options;
  const int workers;
  boost::asio::thread_pool pool;
  ReplyBudget budget;
  std::unique_ptr<AccessLog> access_log;
  std::atomic<int> connections{0};
  std::atomic<int> queued{0};  // requests posted to the pool, not started
  std::atomic<int> busy{0};    // workers running a handler or producing a piece
  std::atomic<bool> stopping{false};

  std::mutex sessions_mutex;
  std::set<std::weak_ptr<SessionBase>, std::owner_less<std::weak_ptr<SessionBase>>> sessions;
};

inline MetricsGauges SharedState::Gauges() const {
  MetricsGauges g;
  std::shared_ptr<ServerContext> c = Current();
  BlockCacheStats cs = c->cache.Stats();
  g.open_connections = connections.load();
  g.queue_depth = queued.load();
  g.busy_workers = busy.load();
  g.reply_bytes_in_flight = budget.used();
  g.reply_budget_bytes = budget.capacity();
  g.cache_hits = cs.hits;
  g.cache_misses = cs.misses;
  g.cache_evictions = cs.evictions;
  g.cache_entries = cs.entries;
  g.cache_bytes = cs.bytes;
  g.cache_capacity = cs.capacity;
  g.datasets = static_cast<int64_t>(c->registry.size());
  return g;
}

}  // namespace hzio::server
