/// Accepts connections on one address and hands each to a plain or TLS HttpSession; connections
/// over the cap get a 503 written straight to the socket and are closed, so a flood cannot
/// exhaust the process.
#pragma once

#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "http/shared_state.h"

namespace hzio::server {

class Listener {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  /// `tls`: the TLS context of an HTTPS listener, nullptr for plain HTTP.
  Listener(boost::asio::io_context& ioc, Strand strand, std::shared_ptr<SharedState> state,
           std::shared_ptr<boost::asio::ssl::context> tls = nullptr);

  /// Binds and listens; throws hzio::Error naming the address. Returns the bound port.
  int Bind(const std::string& host, int port);
  /// Starts accepting (on the strand).
  void Start();
  /// Stops accepting; call on the strand.
  void Close();
  bool tls() const { return tls_ != nullptr; }

 private:
  void Accept();

  boost::asio::io_context& ioc_;
  std::shared_ptr<SharedState> state_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
};

}  // namespace hzio::server
