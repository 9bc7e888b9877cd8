/// State shared by the listener and every session: the request context, the worker pool that
/// runs handlers (block reads and decoding never run on I/O threads), the connection count and
/// the live sessions (for graceful shutdown).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include <boost/asio/thread_pool.hpp>

#include "handlers/server_context.h"

namespace hzio::server {

class HttpSession;

struct SharedState {
  SharedState(std::shared_ptr<ServerContext> c, int workers) : context(std::move(c)), pool(workers) {}

  std::shared_ptr<ServerContext> context;
  boost::asio::thread_pool pool;
  std::atomic<int> connections{0};
  std::atomic<bool> stopping{false};

  std::mutex sessions_mutex;
  std::set<std::weak_ptr<HttpSession>, std::owner_less<std::weak_ptr<HttpSession>>> sessions;
};

}  // namespace hzio::server
