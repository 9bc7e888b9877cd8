#include "http/tls_context.h"

#include <openssl/ssl.h>

#include "hzio/util/error.h"

namespace hzio::server {

namespace ssl = boost::asio::ssl;

namespace {
// Mozilla's "intermediate" TLS 1.2 list: ECDHE key exchange and AEAD ciphers only.
constexpr char kTls12Ciphers[] =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
// TLS 1.3 suites in the server's order of preference: AES-128-GCM first (with AES-NI it is the
// cheapest AEAD for both ends, and the replies are large: OpenSSL's default picks AES-256-GCM),
// ChaCha20 still offered for clients without AES hardware.
constexpr char kTls13Suites[] = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
}  // namespace

std::shared_ptr<ssl::context> MakeTlsContext(const std::string& cert_pem, const std::string& key_pem) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  SSL_CTX* native = ctx->native_handle();
  Check(SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION) == 1, ErrorCode::kInternal,
        "OpenSSL refused TLS 1.2 as the minimum version");
  Check(SSL_CTX_set_cipher_list(native, kTls12Ciphers) == 1, ErrorCode::kInternal, "OpenSSL refused the cipher list");
  Check(SSL_CTX_set_ciphersuites(native, kTls13Suites) == 1, ErrorCode::kInternal, "OpenSSL refused the TLS 1.3 suites");
  SSL_CTX_set_options(native, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert_pem, ec);
  Check(!ec, ErrorCode::kInvalidArgument, "--tls-cert " + cert_pem + ": cannot use it as a PEM certificate chain: " + ec.message());
  ctx->use_private_key_file(key_pem, ssl::context::pem, ec);
  Check(!ec, ErrorCode::kInvalidArgument, "--tls-key " + key_pem + ": cannot use it as a PEM private key: " + ec.message());
  Check(SSL_CTX_check_private_key(native) == 1, ErrorCode::kInvalidArgument,
        "--tls-key " + key_pem + " does not match the certificate of --tls-cert " + cert_pem);
  return ctx;
}

}  // namespace hzio::server
