/// One HTTP/1.1 connection, plain or TLS: keep-alive and pipelining with a bounded queue of
/// in-flight requests whose replies go out in request order, a fresh parser per message with
/// header and body limits, read/idle timeouts, handlers run on the worker pool (operations
/// endpoints on the I/O thread). Replies hold reply-budget bytes until written; a streamed reply
/// (BodyStream) is produced on workers one piece ahead of the piece being written, so it holds at
/// most two pieces whatever its size. Every write has a timeout of write_timeout_seconds plus its
/// size over min_send_bytes_per_second: a client that stops reading is dropped and its bytes freed.
/// Over TLS the socket is corked while replies are written, so a reply's records leave together.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <optional>

#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "http/shared_state.h"

namespace hzio::server {

template <class Stream>
class HttpSession : public SessionBase, public std::enable_shared_from_this<HttpSession<Stream>> {
 public:
  HttpSession(Stream stream, std::shared_ptr<SharedState> state);
  ~HttpSession() override;

  void Run();
  void Shutdown() override;

 private:
  using Response = boost::beast::http::response<boost::beast::http::string_body>;
  using Header = boost::beast::http::response<boost::beast::http::empty_body>;
  struct Slot {
    bool ready = false;
    std::shared_ptr<Response> whole;  // a reply sent in one write
    // A streamed reply: header, then pieces as workers produce them.
    std::shared_ptr<BodyStream> stream;
    std::shared_ptr<Header> header;
    std::unique_ptr<boost::beast::http::response_serializer<boost::beast::http::empty_body>> serializer;
    bool head = false, chunked = false, header_sent = false, producing = false, done = false, failed = false;
    std::deque<std::string> pieces;  // produced, not yet written
    std::string writing;             // the piece being written
    std::chrono::steady_clock::time_point waiting_since{};  // for budget room, when nonzero
    int64_t reserved = 0;            // reply-budget bytes this slot holds
    bool close_after = false;
    AccessRecord record;
    std::chrono::steady_clock::time_point start;
  };

  void OnHandshake(boost::beast::error_code ec);
  void DoRead();
  void OnRead(boost::beast::error_code ec, std::size_t bytes);
  void Dispatch(std::shared_ptr<Slot> slot, Request request, unsigned version, bool keep_alive, bool head);
  void Deliver(std::shared_ptr<Slot> slot, Reply reply, std::string first, bool more, unsigned version,
               bool keep_alive, bool head);
  void Enqueue(std::shared_ptr<Response> response);
  void MaybeWrite();
  void ProduceNext(std::shared_ptr<Slot> slot);
  void OnWritten(std::shared_ptr<Slot> slot, int64_t bytes, boost::beast::error_code ec);
  void AfterWrite(std::shared_ptr<Slot> slot, int64_t bytes, boost::beast::error_code ec);
  void Cork(bool on);
  void FinishSlot(std::shared_ptr<Slot> slot, bool close);
  void StartIdleTimer();
  void Close(bool aborted = false);
  void CloseGracefully();
  bool CanRead() const;
  std::chrono::steady_clock::duration WriteTimeout(int64_t bytes) const;
  void LogAndCount(Slot& slot, bool aborted);

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<SharedState> state_;
  std::deque<std::shared_ptr<Slot>> queue_;
  boost::asio::steady_timer idle_timer_;
  std::string remote_;
  bool reading_ = false;
  bool writing_ = false;
  bool closing_ = false;  // no more requests are read; close once the queue is written
  bool closed_ = false;
  bool closing_tls_ = false;  // close_notify sent
  bool corked_ = false;       // TCP_CORK set while TLS records of replies are being written
};

using PlainSession = HttpSession<boost::beast::tcp_stream>;
using TlsSession = HttpSession<boost::beast::ssl_stream<boost::beast::tcp_stream>>;

}  // namespace hzio::server
