/// One HTTP/1.1 connection: keep-alive and pipelining with a bounded queue of in-flight requests
/// whose replies go out in request order, a fresh parser per message with header and body
/// limits, read/write/idle timeouts, handlers run on the worker pool.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "http/shared_state.h"

namespace hzio::server {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(boost::asio::ip::tcp::socket socket, std::shared_ptr<SharedState> state);
  ~HttpSession();

  void Run();
  /// Finishes the replies in flight, then closes (graceful shutdown). Thread-safe.
  void Shutdown();

 private:
  using Response = boost::beast::http::response<boost::beast::http::string_body>;
  struct Slot {
    std::shared_ptr<Response> response;
    bool ready = false;
  };

  void DoRead();
  void OnRead(boost::beast::error_code ec, std::size_t bytes);
  void Enqueue(std::shared_ptr<Response> response);
  void MaybeWrite();
  void OnWrite(bool close, boost::beast::error_code ec, std::size_t bytes);
  void StartIdleTimer();
  void Close();
  bool CanRead() const;

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<SharedState> state_;
  std::deque<std::shared_ptr<Slot>> queue_;
  boost::asio::steady_timer idle_timer_;
  bool reading_ = false;
  bool writing_ = false;
  bool closing_ = false;  // no more requests are read; close once the queue is written
  bool closed_ = false;
};

}  // namespace hzio::server
