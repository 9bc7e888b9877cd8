/// Accepts connections and hands each to an HttpSession; connections over the cap get a 503
/// written straight to the socket and are closed, so a flood cannot exhaust the process.
#pragma once

#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "http/shared_state.h"

namespace hzio::server {

class Listener {
 public:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  Listener(boost::asio::io_context& ioc, Strand strand, std::shared_ptr<SharedState> state);

  /// Binds and listens; throws hzio::Error naming the address. Returns the bound port.
  int Bind(const std::string& host, int port);
  /// Starts accepting (on the strand).
  void Start();
  /// Stops accepting; call on the strand.
  void Close();

 private:
  void Accept();

  boost::asio::io_context& ioc_;
  std::shared_ptr<SharedState> state_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_timer_;
};

}  // namespace hzio::server
