#include "http/listener.h"

#include <boost/asio/write.hpp>

#include "http/http_session.h"
#include "hzio/util/error.h"

namespace hzio::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

namespace {

// Written straight to a socket over the connection cap, without a session.
const std::string& BusyReply() {
  static const std::string reply = [] {
    const std::string body = "{\"error\":{\"code\":\"unavailable\",\"message\":\"too many connections; retry later\"}}";
    return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
           "Access-Control-Allow-Origin: *\r\nRetry-After: 1\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  }();
  return reply;
}

}  // namespace

Listener::Listener(net::io_context& ioc, Strand strand, std::shared_ptr<SharedState> state,
                   std::shared_ptr<net::ssl::context> tls)
    : ioc_(ioc), state_(std::move(state)), tls_(std::move(tls)), acceptor_(strand), retry_timer_(strand) {}

int Listener::Bind(const std::string& host, int port) {
  boost::system::error_code ec;
  net::ip::address address = net::ip::make_address(host, ec);
  Check(!ec, ErrorCode::kInvalidArgument, "--host '" + host + "' is not an IP address: " + ec.message());
  tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
  auto fail = [&](const char* what) {
    return Error(ErrorCode::kIo, std::string("cannot ") + what + " " + host + ":" + std::to_string(port) + ": " +
                                     ec.message());
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) throw fail("open a socket for");
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  acceptor_.bind(endpoint, ec);
  if (ec) throw fail("bind");
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) throw fail("listen on");
  return acceptor_.local_endpoint().port();
}

void Listener::Start() { net::dispatch(acceptor_.get_executor(), [this] { Accept(); }); }

void Listener::Close() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  retry_timer_.cancel();
}

void Listener::Accept() {
  // Each connection gets its own strand: its handlers never run concurrently.
  acceptor_.async_accept(net::make_strand(ioc_), [this](boost::system::error_code ec, tcp::socket socket) {
    if (!acceptor_.is_open()) return;
    if (ec) {
      // Out of descriptors and similar: back off instead of spinning.
      retry_timer_.expires_after(std::chrono::milliseconds(50));
      retry_timer_.async_wait([this](boost::system::error_code) {
        if (acceptor_.is_open()) Accept();
      });
      return;
    }
    // Replies go out as several writes (headers, body pieces; TLS records): with Nagle on, each
    // reply after the first waits for the client's delayed ACK (~40 ms per request over TLS).
    boost::system::error_code nodelay_error;
    socket.set_option(tcp::no_delay(true), nodelay_error);
    if (state_->connections.load() >= state_->options.max_connections) {
      boost::system::error_code ignored;
      // A TLS client cannot read a plain reply: it just sees the connection closed.
      if (!tls_) {
        socket.non_blocking(true, ignored);
        socket.write_some(net::buffer(BusyReply()), ignored);
      }
      socket.shutdown(tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
    } else if (tls_) {
      std::make_shared<TlsSession>(beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), *tls_),
                                   state_)->Run();
    } else {
      std::make_shared<PlainSession>(beast::tcp_stream(std::move(socket)), state_)->Run();
    }
    Accept();
  });
}

}  // namespace hzio::server
