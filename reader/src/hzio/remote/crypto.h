/// The hashes AWS Signature Version 4 is made of (sigv4.h): SHA-256 and HMAC-SHA256, computed by
/// OpenSSL's libcrypto, with hex output. Nothing here is secret-aware beyond not keeping copies.
#pragma once

#include <string>
#include <string_view>

namespace hzio::internal_remote {

/// SHA-256 of `data`, 32 raw bytes.
std::string Sha256(std::string_view data);
/// HMAC-SHA256 of `data` under `key`, 32 raw bytes.
std::string HmacSha256(std::string_view key, std::string_view data);
/// Lower-case hex of raw bytes ("e3b0c442...").
std::string HexLower(std::string_view bytes);

}  // namespace hzio::internal_remote
