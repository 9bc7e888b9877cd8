#include "http/http_session.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/ssl.h>

#include "handlers/json_api.h"
#include "handlers/operations.h"
#include "handlers/router.h"

namespace hzio::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = boost::asio::ssl;

namespace {

// Replies up to this size are always admitted (an error page or a small reply must not be
// refused because large ones fill the budget).
constexpr int64_t kAlwaysAdmitted = 64 << 10;

template <class Message>
void FillHeader(Message& m, const Reply& reply, unsigned version, bool keep_alive) {
  m.version(version);
  m.result(static_cast<unsigned>(reply.status));
  if (!reply.reason.empty()) m.reason(reply.reason);
  m.set(http::field::server, "hzio");
  for (const auto& [k, v] : reply.headers) m.insert(k, v);
  m.keep_alive(keep_alive);
}

std::shared_ptr<http::response<http::string_body>> ToBeast(Reply reply, unsigned version, bool keep_alive, bool head) {
  auto res = std::make_shared<http::response<http::string_body>>();
  FillHeader(*res, reply, version, keep_alive);
  const size_t length = reply.body.size();
  if (head) {
    res->content_length(length);  // HEAD: the length of the body that GET would send, no body
  } else {
    res->body() = std::move(reply.body);
    res->prepare_payload();
  }
  return res;
}

Reply BusyReply(const std::string& route, const ReplyBudget& budget) {
  Reply r = RouteError(route, 503, "unavailable",
                       "the server holds " + std::to_string(budget.used() >> 20) + " MiB of replies clients have not "
                       "taken yet (budget " + std::to_string(budget.capacity() >> 20) + " MiB); retry shortly");
  r.Set("Retry-After", "1");
  r.Set("Cache-Control", "no-store");
  return r;
}

Reply ProductionError(const std::string& route, const std::exception& e) {
  const Error* err = dynamic_cast<const Error*>(&e);
  const int status = err ? JsonErrorStatus(err->code()) : 500;
  return RouteError(route, status, err ? std::string(ErrorCodeName(err->code())) : "internal", e.what());
}

template <class Stream>
constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

}  // namespace

template <class Stream>
HttpSession<Stream>::HttpSession(Stream stream, std::shared_ptr<SharedState> state)
    : stream_(std::move(stream)), state_(std::move(state)), idle_timer_(stream_.get_executor()) {
  ++state_->connections;
  beast::error_code ec;
  auto endpoint = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
  if (!ec) remote_ = endpoint.address().to_string();
  if constexpr (kTls<Stream>) {
    // Asio turns SSL_MODE_RELEASE_BUFFERS on: OpenSSL then frees its record buffers whenever they
    // empty and allocates them again for the next record, i.e. twice per 16 KiB of every reply on a
    // busy connection. Keep them for the connection's life (~34 KiB per TLS connection).
    SSL_clear_mode(stream_.native_handle(), SSL_MODE_RELEASE_BUFFERS);
  }
}

template <class Stream>
HttpSession<Stream>::~HttpSession() {
  for (auto& slot : queue_) {
    state_->budget.Release(slot->reserved);
    slot->reserved = 0;
  }
  --state_->connections;
}

template <class Stream>
void HttpSession<Stream>::Run() {
  {
    std::lock_guard<std::mutex> lock(state_->sessions_mutex);
    state_->sessions.insert(std::weak_ptr<SessionBase>(this->shared_from_this()));
  }
  net::dispatch(stream_.get_executor(), [self = this->shared_from_this()] {
    if constexpr (kTls<Stream>) {
      beast::get_lowest_layer(self->stream_).expires_after(std::chrono::seconds(self->state_->options.read_timeout_seconds));
      self->stream_.async_handshake(ssl::stream_base::server,
                                    beast::bind_front_handler(&HttpSession::OnHandshake, self));
    } else {
      self->DoRead();
    }
  });
}

template <class Stream>
void HttpSession<Stream>::OnHandshake(beast::error_code ec) {
  if (ec) {
    Close(true);  // not TLS, wrong version, no shared cipher, timeout: nothing to answer
    return;
  }
  DoRead();
}

template <class Stream>
void HttpSession<Stream>::Shutdown() {
  net::post(stream_.get_executor(), [self = this->shared_from_this()] {
    self->closing_ = true;
    if (!self->writing_ && self->queue_.empty()) self->CloseGracefully();
  });
}

template <class Stream>
bool HttpSession<Stream>::CanRead() const {
  return !closing_ && !closed_ && !reading_ && static_cast<int>(queue_.size()) < state_->options.max_pipeline;
}

template <class Stream>
std::chrono::steady_clock::duration HttpSession<Stream>::WriteTimeout(int64_t bytes) const {
  const ServerOptions& o = state_->options;
  const int64_t rate = std::max<int64_t>(1, o.min_send_bytes_per_second);
  return std::chrono::seconds(o.write_timeout_seconds) + std::chrono::milliseconds(bytes * 1000 / rate);
}

template <class Stream>
void HttpSession<Stream>::DoRead() {
  if (!CanRead()) return;
  const ServerOptions& o = state_->options;
  parser_.emplace();
  parser_->header_limit(o.header_limit);
  parser_->body_limit(o.body_limit);
  // The stream has one timer for reads and writes. A write in progress keeps its deadline (a
  // client that pipelines requests without reading replies must not escape the write timeout);
  // with replies still being produced the timer must not close the socket under them; the idle
  // timer takes over once the queue drains.
  if (!writing_) {
    if (queue_.empty()) beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(o.read_timeout_seconds));
    else beast::get_lowest_layer(stream_).expires_never();
  }
  reading_ = true;
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&HttpSession::OnRead, this->shared_from_this()));
}

template <class Stream>
void HttpSession<Stream>::OnRead(beast::error_code ec, std::size_t) {
  reading_ = false;
  idle_timer_.cancel();
  if (closed_) return;
  if (ec == http::error::end_of_stream || ec == net::error::operation_aborted || ec == beast::error::timeout ||
      ec == net::error::eof || ec == net::error::connection_reset || ec == ssl::error::stream_truncated) {
    closing_ = true;
    if (!writing_ && queue_.empty()) Close();
    return;
  }
  if (ec) {
    // A request the parser refused: answer it, then close (the stream is out of sync).
    Reply r;
    if (ec == http::error::body_limit)
      r = JsonError(413, "too_large", "request body is over the limit of " + std::to_string(state_->options.body_limit) + " bytes");
    else if (ec == http::error::header_limit)
      r = JsonError(431, "too_large", "request headers are over the limit of " + std::to_string(state_->options.header_limit) + " bytes");
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
  request.remote_address = remote_;
  request.secure = kTls<Stream>;
  for (const auto& f : req) request.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));

  auto slot = std::make_shared<Slot>();
  slot->start = std::chrono::steady_clock::now();
  slot->record.remote = remote_;
  slot->record.method = request.method;
  slot->record.target = request.target;
  queue_.push_back(slot);
  if (IsOperationsTarget(request.target)) {
    // On this I/O thread: answers while every worker is busy or stuck.
    std::string why;
    const bool ready = state_->Ready(&why);
    Reply reply = HandleOperations(*state_->Current(), request, state_->Gauges(), ready, why);
    state_->budget.Force(head ? 0 : static_cast<int64_t>(reply.body.size()));
    Deliver(slot, std::move(reply), {}, false, req.version(), keep_alive, head);
  } else {
    Dispatch(slot, std::move(request), req.version(), keep_alive, head);
  }
  DoRead();
}

template <class Stream>
void HttpSession<Stream>::Dispatch(std::shared_ptr<Slot> slot, Request request, unsigned version, bool keep_alive,
                                   bool head) {
  ++state_->queued;
  net::post(state_->pool, [self = this->shared_from_this(), slot, request = std::move(request), version, keep_alive,
                           head]() mutable {
    SharedState& st = *self->state_;
    --st.queued;
    ++st.busy;
    Reply reply;
    std::string first;
    bool more = false;
    // A dataset that changes between the handler and its first piece is answered again, once.
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::shared_ptr<ServerContext> context = st.Current();
      try {
        reply = HandleRequest(*context, request);
      } catch (const std::exception& e) {
        reply = JsonError(500, "internal", e.what());
      }
      if (!reply.stream || head) break;
      const int64_t bound = reply.stream->NextPieceBound();
      if (!st.budget.TryReserve(bound)) {
        context->metrics.BudgetRejected();
        reply = BusyReply(reply.route, st.budget);
        break;
      }
      try {
        first.clear();
        more = reply.stream->Next(first);
        st.budget.Release(bound - static_cast<int64_t>(first.size()));
        break;
      } catch (const std::exception& e) {
        st.budget.Release(bound);
        first.clear();
        const Error* err = dynamic_cast<const Error*>(&e);
        if (err && err->code() == ErrorCode::kChanged && attempt == 0) continue;
        reply = ProductionError(reply.route, e);
        break;
      }
    }
    if (!reply.stream) {
      const int64_t size = head ? 0 : static_cast<int64_t>(reply.body.size());
      if (size <= kAlwaysAdmitted) {
        st.budget.Force(size);
      } else if (!st.budget.TryReserve(size)) {
        st.Current()->metrics.BudgetRejected();
        reply = BusyReply(reply.route, st.budget);
        st.budget.Force(static_cast<int64_t>(reply.body.size()));
      }
    }
    --st.busy;
    net::post(self->stream_.get_executor(), [self, slot, reply = std::move(reply), first = std::move(first), more,
                                             version, keep_alive, head]() mutable {
      self->Deliver(slot, std::move(reply), std::move(first), more, version, keep_alive, head);
    });
  });
}

// On the session's strand: the reply of `slot` is ready (its budget already reserved).
template <class Stream>
void HttpSession<Stream>::Deliver(std::shared_ptr<Slot> slot, Reply reply, std::string first, bool more,
                                  unsigned version, bool keep_alive, bool head) {
  slot->record.route = reply.route;
  slot->record.user = reply.user;
  slot->record.status = reply.status;
  if (!reply.stream) {
    slot->reserved = head ? 0 : static_cast<int64_t>(reply.body.size());
    slot->record.bytes = slot->reserved;
    slot->whole = ToBeast(std::move(reply), version, keep_alive, head);
    slot->close_after = slot->whole->need_eof();
  } else {
    auto header = std::make_shared<Header>();
    FillHeader(*header, reply, version, keep_alive);
    const int64_t size = reply.stream->Size();
    if (size >= 0) header->content_length(static_cast<uint64_t>(size));
    else if (version >= 11) header->chunked(true);
    else header->keep_alive(false);  // HTTP/1.0 and no length: the end of the body is the close
    slot->chunked = size < 0 && version >= 11;
    slot->head = head;
    slot->header = header;
    slot->serializer = std::make_unique<http::response_serializer<http::empty_body>>(*header);
    slot->close_after = header->need_eof();
    slot->stream = std::move(reply.stream);
    if (head) {
      slot->done = true;
    } else {
      slot->reserved = static_cast<int64_t>(first.size());
      if (!first.empty()) slot->pieces.push_back(std::move(first));
      slot->done = !more;
    }
  }
  slot->ready = true;
  if (closed_) {
    state_->budget.Release(slot->reserved);
    slot->reserved = 0;
    return;
  }
  MaybeWrite();
  if (slot->stream && !slot->done) ProduceNext(slot);
}

template <class Stream>
void HttpSession<Stream>::ProduceNext(std::shared_ptr<Slot> slot) {
  if (closed_ || slot->producing || slot->done || slot->failed || !slot->pieces.empty()) return;
  const int64_t bound = slot->stream->NextPieceBound();
  SharedState& st = *state_;
  if (!st.budget.TryReserve(bound)) {
    // Wait for room (other replies being written free theirs), as long as a write may take.
    const auto now = std::chrono::steady_clock::now();
    if (slot->waiting_since == std::chrono::steady_clock::time_point{}) slot->waiting_since = now;
    if (now - slot->waiting_since > WriteTimeout(bound)) {
      slot->failed = true;
      MaybeWrite();
      return;
    }
    auto timer = std::make_shared<net::steady_timer>(stream_.get_executor(), std::chrono::milliseconds(10));
    timer->async_wait([self = this->shared_from_this(), slot, timer](beast::error_code) { self->ProduceNext(slot); });
    return;
  }
  slot->waiting_since = {};
  slot->producing = true;
  ++st.queued;
  net::post(st.pool, [self = this->shared_from_this(), slot, stream = slot->stream, bound] {
    SharedState& s = *self->state_;
    --s.queued;
    ++s.busy;
    std::string piece;
    bool more = false, failed = false;
    try {
      more = stream->Next(piece);
    } catch (const std::exception& e) {
      failed = true;
      piece.clear();
      std::fprintf(stderr, "hzio serve: reply to %s aborted: %s\n", slot->record.target.substr(0, 300).c_str(), e.what());
    }
    s.budget.Release(bound - static_cast<int64_t>(piece.size()));
    --s.busy;
    net::post(self->stream_.get_executor(), [self, slot, piece = std::move(piece), more, failed]() mutable {
      slot->producing = false;
      if (self->closed_) {
        self->state_->budget.Release(static_cast<int64_t>(piece.size()));
        return;
      }
      if (failed) {
        slot->failed = true;
      } else {
        slot->reserved += static_cast<int64_t>(piece.size());
        if (!piece.empty()) slot->pieces.push_back(std::move(piece));
        if (!more) slot->done = true;
      }
      self->MaybeWrite();
      self->ProduceNext(slot);  // no-op unless the stream gave an empty piece and has more
    });
  });
}

template <class Stream>
void HttpSession<Stream>::Enqueue(std::shared_ptr<Response> response) {
  auto slot = std::make_shared<Slot>();
  slot->start = std::chrono::steady_clock::now();
  slot->record.remote = remote_;
  slot->record.route = "invalid";
  slot->record.status = static_cast<int>(response->result_int());
  slot->reserved = static_cast<int64_t>(response->body().size());
  state_->budget.Force(slot->reserved);
  slot->whole = std::move(response);
  slot->close_after = true;
  slot->ready = true;
  queue_.push_back(slot);
  MaybeWrite();
}

template <class Stream>
void HttpSession<Stream>::MaybeWrite() {
  if (writing_ || closed_ || queue_.empty() || !queue_.front()->ready) return;
  std::shared_ptr<Slot> slot = queue_.front();
  auto& lowest = beast::get_lowest_layer(stream_);
  auto self = this->shared_from_this();
  if (slot->whole) {
    writing_ = true;
    Cork(true);
    const int64_t bytes = static_cast<int64_t>(slot->whole->body().size());
    lowest.expires_after(WriteTimeout(bytes));
    http::async_write(stream_, *slot->whole, [self, slot, bytes](beast::error_code ec, std::size_t) {
      self->OnWritten(slot, bytes, ec);
    });
    return;
  }
  if (!slot->header_sent) {
    writing_ = true;
    Cork(true);
    lowest.expires_after(WriteTimeout(0));
    http::async_write_header(stream_, *slot->serializer, [self, slot](beast::error_code ec, std::size_t) {
      slot->header_sent = true;
      self->OnWritten(slot, 0, ec);
    });
    return;
  }
  if (!slot->pieces.empty()) {
    writing_ = true;
    Cork(true);
    slot->writing = std::move(slot->pieces.front());
    slot->pieces.pop_front();
    const int64_t bytes = static_cast<int64_t>(slot->writing.size());
    lowest.expires_after(WriteTimeout(bytes));
    auto done = [self, slot, bytes](beast::error_code ec, std::size_t) { self->OnWritten(slot, bytes, ec); };
    if (slot->chunked) net::async_write(stream_, http::make_chunk(net::buffer(slot->writing)), std::move(done));
    else net::async_write(stream_, net::buffer(slot->writing), std::move(done));
    ProduceNext(slot);  // the next piece is produced while this one is sent
    return;
  }
  if (slot->failed) {
    // Too late for an error status: the client sees a short body, never wrong bytes.
    LogAndCount(*slot, true);
    Close(true);
    return;
  }
  if (slot->done) {
    if (slot->chunked && !slot->head) {
      writing_ = true;
      Cork(true);
      slot->chunked = false;  // the last chunk goes out once
      lowest.expires_after(WriteTimeout(0));
      net::async_write(stream_, http::make_chunk_last(), [self, slot](beast::error_code ec, std::size_t) {
        self->OnWritten(slot, 0, ec);
      });
      return;
    }
    FinishSlot(slot, slot->close_after);
  }
  // Otherwise the next piece is being produced; its arrival calls MaybeWrite again.
}

template <class Stream>
void HttpSession<Stream>::OnWritten(std::shared_ptr<Slot> slot, int64_t bytes, beast::error_code ec) {
  AfterWrite(std::move(slot), bytes, ec);
  if (!writing_) Cork(false);  // nothing more to write now: what the kernel holds goes out
}

// TLS only. OpenSSL turns a reply into 16 KiB records and Asio sends each record with its own
// send(), so a 48 KiB reply went out as 4 sends, 4 TCP segments and 4 wake-ups of the client
// (over plain HTTP the same reply is one writev). The socket is
// corked while replies are being written and uncorked as soon as no write follows: the records of
// a reply (and of pipelined replies written back to back) leave together, and uncorking pushes
// them at once, so no delay is added.
template <class Stream>
void HttpSession<Stream>::Cork(bool on) {
  if constexpr (kTls<Stream>) {
    if (corked_ == on || closed_) return;
    corked_ = on;
    const int value = on ? 1 : 0;
    // A failure only costs the batching: the write itself reports real socket errors.
    setsockopt(beast::get_lowest_layer(stream_).socket().native_handle(), IPPROTO_TCP, TCP_CORK, &value,
               sizeof value);
  }
}

template <class Stream>
void HttpSession<Stream>::AfterWrite(std::shared_ptr<Slot> slot, int64_t bytes, beast::error_code ec) {
  writing_ = false;
  if (closed_) return;  // Close() released everything the slot held
  if (slot->stream) {
    slot->writing.clear();
    slot->writing.shrink_to_fit();
    slot->record.bytes += bytes;
  }
  slot->reserved -= bytes;
  state_->budget.Release(bytes);
  if (ec) {
    LogAndCount(*slot, true);
    Close(true);  // includes the write timeout of a client that stopped reading
    return;
  }
  if (slot->whole) {
    FinishSlot(slot, slot->close_after);
    return;
  }
  MaybeWrite();
}

template <class Stream>
void HttpSession<Stream>::FinishSlot(std::shared_ptr<Slot> slot, bool close) {
  LogAndCount(*slot, false);
  state_->budget.Release(slot->reserved);
  slot->reserved = 0;
  queue_.pop_front();
  if (close) {
    CloseGracefully();
    return;
  }
  if (!queue_.empty()) {
    MaybeWrite();
  } else if (closing_) {
    CloseGracefully();
    return;
  }
  if (reading_ && queue_.empty()) StartIdleTimer();
  DoRead();
}

template <class Stream>
void HttpSession<Stream>::LogAndCount(Slot& slot, bool aborted) {
  if (slot.record.route.empty()) return;  // counted already
  slot.record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - slot.start).count();
  slot.record.aborted = aborted;
  state_->Current()->metrics.Observe(slot.record.route, slot.record.status, slot.record.seconds, slot.record.bytes);
  if (state_->access_log) state_->access_log->Write(slot.record);
  slot.record.route.clear();
}

template <class Stream>
void HttpSession<Stream>::StartIdleTimer() {
  idle_timer_.expires_after(std::chrono::seconds(state_->options.idle_timeout_seconds));
  idle_timer_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
    if (!ec && self->reading_ && self->queue_.empty()) self->Close();
  });
}

template <class Stream>
void HttpSession<Stream>::CloseGracefully() {
  if constexpr (kTls<Stream>) {
    if (closed_ || closing_tls_) return;
    closing_tls_ = true;
    // close_notify, so a client reading to the end of the stream knows the body is complete.
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(2));
    stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->Close(); });
  } else {
    Close();
  }
}

template <class Stream>
void HttpSession<Stream>::Close(bool aborted) {
  if (closed_) return;
  closed_ = true;
  idle_timer_.cancel();
  for (auto& slot : queue_) {
    if (aborted || slot->ready) LogAndCount(*slot, true);
    state_->budget.Release(slot->reserved);
    slot->reserved = 0;
    slot->pieces.clear();
  }
  beast::error_code ignored;
  auto& socket = beast::get_lowest_layer(stream_).socket();
  socket.shutdown(net::ip::tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
  std::lock_guard<std::mutex> lock(state_->sessions_mutex);
  state_->sessions.erase(std::weak_ptr<SessionBase>(this->shared_from_this()));
}

template class HttpSession<beast::tcp_stream>;
template class HttpSession<beast::ssl_stream<beast::tcp_stream>>;

}  // namespace hzio::server
