#include "http/http_session.h"

#include <chrono>
#include <cstdio>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "handlers/json_api.h"
#include "handlers/router.h"

namespace hzio::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

namespace {

std::shared_ptr<http::response<http::string_body>> ToBeast(Reply reply, unsigned version, bool keep_alive,
                                                           bool head) {
  auto res = std::make_shared<http::response<http::string_body>>();
  res->version(version);
  res->result(static_cast<unsigned>(reply.status));
  if (!reply.reason.empty()) res->reason(reply.reason);
  res->set(http::field::server, "hzio");
  for (auto& [k, v] : reply.headers) res->insert(k, v);
  res->keep_alive(keep_alive);
  const size_t length = reply.body.size();
  if (head) {
    res->content_length(length);  // HEAD: the length of the body that GET would send, no body
  } else {
    res->body() = std::move(reply.body);
    res->prepare_payload();
  }
  return res;
}

}  // namespace

HttpSession::HttpSession(net::ip::tcp::socket socket, std::shared_ptr<SharedState> state)
    : stream_(std::move(socket)), state_(std::move(state)), idle_timer_(stream_.get_executor()) {
  ++state_->connections;
}

HttpSession::~HttpSession() { --state_->connections; }

void HttpSession::Run() {
  {
    std::lock_guard<std::mutex> lock(state_->sessions_mutex);
    state_->sessions.insert(weak_from_this());
  }
  net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->DoRead(); });
}

void HttpSession::Shutdown() {
  net::post(stream_.get_executor(), [self = shared_from_this()] {
    self->closing_ = true;
    if (!self->writing_ && self->queue_.empty()) self->Close();
  });
}

bool HttpSession::CanRead() const {
  return !closing_ && !closed_ && !reading_ &&
         static_cast<int>(queue_.size()) < state_->context->options.max_pipeline;
}

void HttpSession::DoRead() {
  if (!CanRead()) return;
  const ServerOptions& o = state_->context->options;
  parser_.emplace();
  parser_->header_limit(o.header_limit);
  parser_->body_limit(o.body_limit);
  // With replies still in flight the stream's timer must not close the socket under them; the
  // idle timer takes over once the queue drains.
  if (queue_.empty()) stream_.expires_after(std::chrono::seconds(o.read_timeout_seconds));
  else stream_.expires_never();
  reading_ = true;
  http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&HttpSession::OnRead, shared_from_this()));
}

void HttpSession::OnRead(beast::error_code ec, std::size_t) {
  reading_ = false;
  idle_timer_.cancel();
  if (closed_) return;
  if (ec == http::error::end_of_stream || ec == net::error::operation_aborted || ec == beast::error::timeout ||
      ec == net::error::eof || ec == net::error::connection_reset) {
    closing_ = true;
    if (!writing_ && queue_.empty()) Close();
    return;
  }
  if (ec) {
    // A request the parser refused: answer it, then close (the stream is out of sync).
    Reply r;
    if (ec == http::error::body_limit)
      r = JsonError(413, "too_large", "request body is over the limit of " +
                                          std::to_string(state_->context->options.body_limit) + " bytes");
    else if (ec == http::error::header_limit)
      r = JsonError(431, "too_large", "request headers are over the limit of " +
                                          std::to_string(state_->context->options.header_limit) + " bytes");
    else
      r = JsonError(400, "invalid_argument", "malformed HTTP request: " + ec.message());
    r.Set("Access-Control-Allow-Origin", "*");
    closing_ = true;
    Enqueue(ToBeast(std::move(r), 11, false, false));
    return;
  }

  http::request<http::string_body> req = parser_->release();
  const bool keep_alive = req.keep_alive() && !state_->stopping;
  const bool head = req.method() == http::verb::head;
  if (!keep_alive) closing_ = true;
  Request request;
  request.method = std::string(req.method_string());
  request.target = std::string(req.target());
  for (const auto& f : req) request.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));

  auto slot = std::make_shared<Slot>();
  queue_.push_back(slot);
  net::post(state_->pool, [self = shared_from_this(), slot, request = std::move(request), version = req.version(),
                           keep_alive, head]() mutable {
    std::shared_ptr<Response> res;
    try {
      const auto start = std::chrono::steady_clock::now();
      Reply reply = HandleRequest(*self->state_->context, request);
      if (self->state_->context->options.access_log) {
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "hzio serve: %s %s %d %zu %.2fms\n", request.method.c_str(), request.target.c_str(),
                     reply.status, reply.body.size(), ms);
      }
      res = ToBeast(std::move(reply), version, keep_alive, head);
    } catch (const std::exception& e) {
      res = ToBeast(JsonError(500, "internal", e.what()), version, false, head);
    }
    net::post(self->stream_.get_executor(), [self, slot, res] {
      slot->response = res;
      slot->ready = true;
      self->MaybeWrite();
    });
  });
  DoRead();
}

void HttpSession::Enqueue(std::shared_ptr<Response> response) {
  auto slot = std::make_shared<Slot>();
  slot->response = std::move(response);
  slot->ready = true;
  queue_.push_back(slot);
  MaybeWrite();
}

void HttpSession::MaybeWrite() {
  if (writing_ || closed_ || queue_.empty() || !queue_.front()->ready) return;
  writing_ = true;
  stream_.expires_after(std::chrono::seconds(state_->context->options.write_timeout_seconds));
  Response& res = *queue_.front()->response;
  const bool close = res.need_eof();
  http::async_write(stream_, res,
                    beast::bind_front_handler(&HttpSession::OnWrite, shared_from_this(), close));
}

void HttpSession::OnWrite(bool close, beast::error_code ec, std::size_t) {
  writing_ = false;
  if (closed_) return;
  if (ec) {
    Close();
    return;
  }
  queue_.pop_front();
  if (close) {
    Close();
    return;
  }
  if (!queue_.empty()) {
    MaybeWrite();
  } else if (closing_) {
    Close();
    return;
  }
  if (reading_ && queue_.empty()) StartIdleTimer();
  DoRead();
}

void HttpSession::StartIdleTimer() {
  idle_timer_.expires_after(std::chrono::seconds(state_->context->options.read_timeout_seconds));
  idle_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (!ec && self->reading_ && self->queue_.empty()) self->Close();
  });
}

void HttpSession::Close() {
  if (closed_) return;
  closed_ = true;
  idle_timer_.cancel();
  beast::error_code ignored;
  stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
  std::lock_guard<std::mutex> lock(state_->sessions_mutex);
  state_->sessions.erase(weak_from_this());
}

}  // namespace hzio::server
