#include "http/server.h"

#include <algorithm>
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
        listener(ioc, strand, state),
        stop_timer(strand),
        signals(strand) {}

  // Stops accepting, lets every session finish the replies in flight, then stops the loop.
  void BeginShutdown() {
    if (state->stopping.exchange(true)) return;
    listener.Close();
    boost::system::error_code ignored;
    signals.cancel(ignored);
    std::vector<std::shared_ptr<HttpSession>> live;
    {
      std::lock_guard<std::mutex> lock(state->sessions_mutex);
      for (const auto& w : state->sessions)
        if (auto s = w.lock()) live.push_back(s);
    }
    for (auto& s : live) s->Shutdown();
    deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    WaitForSessions();
  }

  // Polls until every connection is closed (or the grace period ends), then stops the loop.
  void WaitForSessions() {
    if (state->connections.load() == 0 || std::chrono::steady_clock::now() > deadline) {
      ioc.stop();
      return;
    }
    stop_timer.expires_after(std::chrono::milliseconds(20));
    stop_timer.async_wait([this](boost::system::error_code) { WaitForSessions(); });
  }

  net::io_context ioc;
  std::shared_ptr<SharedState> state;
  // The listener, timers and signals share one strand, so shutdown never races an accept.
  net::strand<net::io_context::executor_type> strand;
  Listener listener;
  net::steady_timer stop_timer;
  net::signal_set signals;
  std::chrono::steady_clock::time_point deadline;
};

HttpServer::HttpServer(std::shared_ptr<ServerContext> context) : impl_(std::make_unique<Impl>(std::move(context))) {}

HttpServer::~HttpServer() {
  impl_->ioc.stop();
  impl_->state->pool.join();
}

int HttpServer::Bind(const std::string& host, int port) { return impl_->listener.Bind(host, port); }

void HttpServer::Run(bool handle_signals) {
  if (handle_signals) {
    impl_->signals.add(SIGINT);
    impl_->signals.add(SIGTERM);
    impl_->signals.async_wait([this](boost::system::error_code ec, int) {
      if (!ec) impl_->BeginShutdown();
    });
  }
  impl_->listener.Start();
  const int io_threads = std::max(1, impl_->state->context->options.io_threads);
  std::vector<std::thread> extra;
  for (int i = 1; i < io_threads; ++i) extra.emplace_back([this] { impl_->ioc.run(); });
  impl_->ioc.run();
  for (auto& t : extra) t.join();
  impl_->state->pool.join();
}

void HttpServer::Stop() {
  net::post(impl_->strand, [this] { impl_->BeginShutdown(); });
}

}  // namespace hzio::server
