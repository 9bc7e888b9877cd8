#include "auth/password_hash.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <vector>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

constexpr char kScheme[] = "pbkdf2-sha256";
constexpr size_t kSaltBytes = 16;
constexpr size_t kKeyBytes = 32;

struct Parsed {
  int iterations = 0;
  std::string salt, key;
};

std::string Derive(std::string_view secret, const std::string& salt, int iterations, size_t bytes) {
  std::string key(bytes, '\0');
  const int ok = PKCS5_PBKDF2_HMAC(secret.data(), static_cast<int>(secret.size()),
                                   reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()),
                                   iterations, EVP_sha256(), static_cast<int>(bytes),
                                   reinterpret_cast<unsigned char*>(key.data()));
  Check(ok == 1, ErrorCode::kInternal, "PBKDF2 failed in OpenSSL");
  return key;
}

Parsed Parse(const std::string& stored) {
  // $pbkdf2-sha256$<iterations>$<salt>$<key>: the leading '$' gives an empty first piece.
  std::vector<std::string> parts = Split(stored, '$');
  auto bad = [](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument, "secret hash is not of the form $pbkdf2-sha256$N$SALT$HASH "
                                              "(make one with `hzio passwd`): " + why);
  };
  if (parts.size() != 5 || !parts[0].empty() || parts[1] != kScheme) throw bad("wrong scheme or number of fields");
  Parsed p;
  int64_t n = 0;
  try {
    n = ParseInt64(parts[2], "iterations");
  } catch (const Error&) {
    throw bad("iterations are not a number");
  }
  if (n < kMinPbkdf2Iterations || n > 100000000)
    throw bad("iterations must be " + std::to_string(kMinPbkdf2Iterations) + "..100000000");
  p.iterations = static_cast<int>(n);
  if (!Base64Decode(parts[3], &p.salt) || p.salt.size() < 8) throw bad("salt is not base64 of at least 8 bytes");
  if (!Base64Decode(parts[4], &p.key) || p.key.size() < 16) throw bad("hash is not base64 of at least 16 bytes");
  return p;
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

bool Base64Decode(std::string_view text, std::string* out) {
  static const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return false;
  out->clear();
  out->reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return false;  // data after padding
        v[k] = value(c);
        if (v[k] < 0) return false;
      }
    }
    const uint32_t w = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
    out->push_back(static_cast<char>(w >> 16));
    if (pad < 2) out->push_back(static_cast<char>((w >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(w & 0xff));
  }
  return true;
}

std::string HashSecret(std::string_view secret, int iterations) {
  Check(!secret.empty(), ErrorCode::kInvalidArgument, "the secret is empty");
  Check(iterations >= kMinPbkdf2Iterations, ErrorCode::kInvalidArgument,
        "at least " + std::to_string(kMinPbkdf2Iterations) + " iterations are needed");
  std::string salt(kSaltBytes, '\0');
  Check(RAND_bytes(reinterpret_cast<unsigned char*>(salt.data()), static_cast<int>(salt.size())) == 1,
        ErrorCode::kInternal, "OpenSSL could not produce random bytes for the salt");
  const std::string key = Derive(secret, salt, iterations, kKeyBytes);
  return std::string("$") + kScheme + "$" + std::to_string(iterations) + "$" + Base64Encode(salt) + "$" +
         Base64Encode(key);
}

void CheckSecretHash(const std::string& stored) { (void)Parse(stored); }

bool VerifySecret(std::string_view secret, const std::string& stored) {
  const Parsed p = Parse(stored);
  const std::string key = Derive(secret, p.salt, p.iterations, p.key.size());
  return CRYPTO_memcmp(key.data(), p.key.data(), key.size()) == 0;
}

}  // namespace hzio::server
