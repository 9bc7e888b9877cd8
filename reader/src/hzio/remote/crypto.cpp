#include "hzio/remote/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "hzio/util/error.h"

namespace hzio::internal_remote {

std::string Sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  Check(EVP_Digest(data.data(), data.size(), out, &length, EVP_sha256(), nullptr) == 1 && length == 32,
        ErrorCode::kInternal, "OpenSSL EVP_Digest(SHA-256) failed");
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  const unsigned char* ok = HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                                 reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &length);
  Check(ok != nullptr && length == 32, ErrorCode::kInternal, "OpenSSL HMAC(SHA-256) failed");
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string HexLower(std::string_view bytes) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

}  // namespace hzio::internal_remote
