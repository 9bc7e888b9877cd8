#include "http/server.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <list>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "http/http_session.h"
#include "http/listener.h"

namespace hzio::server {

namespace net = boost::asio;

struct HttpServer::Impl {
  explicit Impl(std::shared_ptr<ServerContext> context)
      : state(std::make_shared<SharedState>(
            context, context->options.worker_threads > 0
                         ? context->options.worker_threads
                         : std::max(2, static_cast<int>(std::thread::hardware_concurrency())))),
        strand(net::make_strand(ioc)),
        stop_timer(strand),
        signals(strand) {}

  ~Impl() {
    if (reload_thread.joinable()) reload_thread.join();
  }

  // Stops accepting, lets every session finish the replies in flight within the grace period,
  // then stops the loop.
  void BeginShutdown() {
    if (state->stopping.exchange(true)) return;
    for (auto& l : listeners) l.Close();
    boost::system::error_code ignored;
    signals.cancel(ignored);
    std::vector<std::shared_ptr<SessionBase>> live;
    {
      std::lock_guard<std::mutex> lock(state->sessions_mutex);
      for (const auto& w : state->sessions)
        if (auto s = w.lock()) live.push_back(s);
    }
    for (auto& s : live) s->Shutdown();
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(state->options.shutdown_grace_seconds);
    WaitForSessions();
  }

  // Polls until every connection is closed (or the grace period ends), then stops the loop.
  void WaitForSessions() {
    if (state->connections.load() == 0 || std::chrono::steady_clock::now() >= deadline) {
      ioc.stop();
      return;
    }
    stop_timer.expires_after(std::chrono::milliseconds(20));
    stop_timer.async_wait([this](boost::system::error_code) { WaitForSessions(); });
  }

  void WaitForSignal() {
    signals.async_wait([this](boost::system::error_code ec, int signal) {
      if (ec) return;
      if (signal == SIGHUP) {
        // Opening datasets takes time: off the I/O thread, one reload at a time.
        if (reload_thread.joinable()) reload_thread.join();
        reload_thread = std::thread([this] { DoReload(); });
        WaitForSignal();
        return;
      }
      BeginShutdown();
    });
  }

  bool DoReload() {
    std::shared_ptr<ServerContext> current = state->Current();
    if (!reload) return false;
    try {
      std::shared_ptr<ServerContext> next = reload(*current);
      state->Replace(next);
      current->metrics.Reload(true);
      std::fprintf(stderr, "hzio serve: configuration reloaded: %zu datasets, %zu users\n", next->registry.size(),
                   next->options.users.size());
      return true;
    } catch (const std::exception& e) {
      current->metrics.Reload(false);
      std::fprintf(stderr, "hzio serve: reload refused, the previous configuration stays: %s\n", e.what());
      return false;
    }
  }

  net::io_context ioc;
  std::shared_ptr<SharedState> state;
  // The listeners, timers and signals share one strand, so shutdown never races an accept.
  net::strand<net::io_context::executor_type> strand;
  std::list<Listener> listeners;
  net::steady_timer stop_timer;
  net::signal_set signals;
  std::chrono::steady_clock::time_point deadline;
  Reloader reload;
  std::thread reload_thread;
};

HttpServer::HttpServer(std::shared_ptr<ServerContext> context) : impl_(std::make_unique<Impl>(std::move(context))) {}

HttpServer::~HttpServer() {
  impl_->ioc.stop();
  impl_->state->pool.join();
}

int HttpServer::Bind(const std::string& host, int port, std::shared_ptr<boost::asio::ssl::context> tls) {
  impl_->listeners.emplace_back(impl_->ioc, impl_->strand, impl_->state, std::move(tls));
  try {
    return impl_->listeners.back().Bind(host, port);
  } catch (...) {
    impl_->listeners.pop_back();
    throw;
  }
}

void HttpServer::HandleSignals(Reloader reload) {
  impl_->reload = std::move(reload);
  impl_->signals.add(SIGINT);
  impl_->signals.add(SIGTERM);
  impl_->signals.add(SIGHUP);
  impl_->WaitForSignal();
}

void HttpServer::Run() {
  for (auto& l : impl_->listeners) l.Start();
  const int io_threads = std::max(1, impl_->state->options.io_threads);
  std::vector<std::thread> extra;
  for (int i = 1; i < io_threads; ++i) extra.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : extra) t.join();
}

bool HttpServer::JoinWorkers(double seconds) {
  // asio's thread_pool::join has no timeout: join on a helper thread and wait for it.
  auto done = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
  auto finished = std::make_shared<bool>(false);
  std::shared_ptr<SharedState> state = impl_->state;
  std::thread joiner([state, done, finished] {
    state->pool.join();
    std::lock_guard<std::mutex> lock(done->first);
    *finished = true;
    done->second.notify_all();
  });
  std::unique_lock<std::mutex> lock(done->first);
  const bool ok = done->second.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return *finished; });
  lock.unlock();
  if (ok) joiner.join();
  else joiner.detach();  // the process exits without waiting for the stuck workers
  return ok;
}

void HttpServer::Stop() {
  net::post(impl_->strand, [this] { impl_->BeginShutdown(); });
}

bool HttpServer::Reload() { return impl_->DoReload(); }

std::shared_ptr<ServerContext> HttpServer::Current() const { return impl_->state->Current(); }

}  // namespace hzio::server
