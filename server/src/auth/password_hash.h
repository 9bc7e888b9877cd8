/// Salted, slow hashes of user secrets (passwords for HTTP Basic, tokens for Bearer) as they are
/// stored in the server's config: `$pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`,
/// PBKDF2-HMAC-SHA256 from OpenSSL with a 16-byte random salt per secret. Secrets are never stored
/// or logged in clear; comparisons take constant time.
#pragma once

#include <string>
#include <string_view>

namespace hzio::server {

/// Iterations of a new hash: OWASP's 2023 figure for PBKDF2-HMAC-SHA256. A verification costs
/// about a quarter of a second of CPU, which is why the server caches successful ones.
constexpr int kDefaultPbkdf2Iterations = 600000;
/// Hashes with fewer iterations are refused when the config is read. Fuzzing builds (clang's
/// standard macro, never a release) accept cheap hashes so that inputs reaching the KDF stay fast.
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr int kMinPbkdf2Iterations = 1;
#else
constexpr int kMinPbkdf2Iterations = 100000;
#endif

/// Hashes `secret` with a fresh random salt. Throws hzio::Error(kInvalidArgument) for an empty
/// secret or too few iterations, kInternal when OpenSSL fails.
std::string HashSecret(std::string_view secret, int iterations = kDefaultPbkdf2Iterations);

/// Whether `secret` hashes to `stored` (constant-time comparison of the derived keys).
/// Throws hzio::Error(kInvalidArgument) when `stored` is not a hash of HashSecret's format.
bool VerifySecret(std::string_view secret, const std::string& stored);

/// Checks that `stored` has HashSecret's format (used when the config is read); throws
/// hzio::Error(kInvalidArgument) saying what is wrong, without echoing the value.
void CheckSecretHash(const std::string& stored);

/// Base64 (RFC 4648, with padding) and its inverse; Decode returns false for malformed input.
std::string Base64Encode(std::string_view bytes);
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace hzio::server
