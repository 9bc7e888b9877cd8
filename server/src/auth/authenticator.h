/// Who is asking: HTTP Basic (`user:password`, what the OpenVisus client sends for a URL with
/// `user:password@`) and Bearer tokens checked against the users of the config (secrets stored as
/// hashes, password_hash.h), and which datasets a caller may read (per-dataset `readers` lists and
/// the `public` flag). A KDF costs ~0.25 s, so verifications are cached under a keyed SHA-256 of
/// the presented credentials with a per-process random key: a Bearer token on every request costs one
/// hash, never a KDF, and the cache holds no secret in clear. Failures are cached briefly too, so a
/// client repeating a wrong secret cannot make the server run the KDF in a loop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <openssl/types.h>

#include "config/server_options.h"
#include "http/message.h"

namespace hzio::server {

class Authenticator {
 public:
  explicit Authenticator(std::vector<UserEntry> users);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;

  /// Whether any user is configured (otherwise every dataset is public, as without access lists).
  bool enabled() const { return !users_.empty(); }

  /// The caller presenting `authorization` (the header's value, "" when absent). Never throws for
  /// malformed headers: they give bad_credentials. Thread-safe.
  Caller Authenticate(const std::string& authorization);

  /// Whether `caller` may read `dataset` (always, when no user is configured).
  bool CanRead(const DatasetEntry& dataset, const Caller& caller) const;

  /// The configured user named `name`, or nullptr.
  const UserEntry* FindUser(const std::string& name) const;

 private:
  std::optional<std::string> Verify(const std::string& scheme, const std::string& user, const std::string& secret);
  std::string CacheKey(const std::string& scheme, const std::string& user, const std::string& secret) const;

  std::vector<UserEntry> users_;
  std::string hmac_key_;  // random, per process generation: cache keys are useless elsewhere
  EVP_MD* sha256_;        // fetched once (OpenSSL 3 lookups by name are slow)

  struct Cached {
    std::string user;  // "" = the credentials were wrong
    std::chrono::steady_clock::time_point expires;
    std::list<std::string>::iterator lru;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Cached> cache_;
  std::list<std::string> lru_;  // front = most recent
  std::unordered_set<std::string> pending_;  // keys whose KDF runs now
  std::condition_variable verified_;
};

/// The HTTP challenge sent with a 401.
constexpr char kWwwAuthenticate[] = "Basic realm=\"hzio\", Bearer realm=\"hzio\"";

}  // namespace hzio::server
