/// The server's TLS configuration (Boost.Asio ssl over Debian's OpenSSL 3): TLS 1.2 and 1.3 only,
/// forward-secret AEAD cipher suites for TLS 1.2 (TLS 1.3's are all modern; AES-128-GCM preferred),
/// the certificate chain and private key from PEM files.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

namespace hzio::server {

/// Throws hzio::Error(kInvalidArgument) naming the file that cannot be used.
std::shared_ptr<boost::asio::ssl::context> MakeTlsContext(const std::string& cert_pem, const std::string& key_pem);

}  // namespace hzio::server
