#include "auth/authenticator.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>

#include "auth/password_hash.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

constexpr size_t kMaxCached = 4096;
constexpr auto kGoodLifetime = std::chrono::minutes(10);
constexpr auto kBadLifetime = std::chrono::seconds(30);
constexpr size_t kMaxCredentialBytes = 4096;

bool SchemeIs(const std::string& header, const char* scheme, std::string* rest) {
  const size_t n = std::char_traits<char>::length(scheme);
  if (header.size() <= n || ToLower(header.substr(0, n)) != ToLower(scheme) || header[n] != ' ') return false;
  *rest = Trim(header.substr(n + 1));
  return true;
}

}  // namespace

Authenticator::Authenticator(std::vector<UserEntry> users)
    : users_(std::move(users)), hmac_key_(32, '\0'), sha256_(EVP_MD_fetch(nullptr, "SHA256", nullptr)) {
  Check(sha256_ != nullptr, ErrorCode::kInternal, "OpenSSL has no SHA-256");
  Check(RAND_bytes(reinterpret_cast<unsigned char*>(hmac_key_.data()), static_cast<int>(hmac_key_.size())) == 1,
        ErrorCode::kInternal, "OpenSSL could not produce random bytes");
}

Authenticator::~Authenticator() { EVP_MD_free(sha256_); }

const UserEntry* Authenticator::FindUser(const std::string& name) const {
  for (const UserEntry& u : users_)
    if (u.name == name) return &u;
  return nullptr;
}

std::string Authenticator::CacheKey(const std::string& scheme, const std::string& user,
                                    const std::string& secret) const {
  // SHA-256 over (random key, scheme, user, secret) with the digest fetched once: OpenSSL 3's
  // one-shot HMAC() looks the algorithms up by name on every call, which costs more than the rest
  // of a cached request. With a secret key in front, the digest is a fine lookup key (only equality
  // is used) and says nothing about the secret.
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const char zero = 0;
  const bool ok = ctx && EVP_DigestInit_ex(ctx, sha256_, nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, hmac_key_.data(), hmac_key_.size()) == 1 &&
                  EVP_DigestUpdate(ctx, scheme.data(), scheme.size()) == 1 && EVP_DigestUpdate(ctx, &zero, 1) == 1 &&
                  EVP_DigestUpdate(ctx, user.data(), user.size()) == 1 && EVP_DigestUpdate(ctx, &zero, 1) == 1 &&
                  EVP_DigestUpdate(ctx, secret.data(), secret.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx, digest, &len) == 1;
  EVP_MD_CTX_free(ctx);
  Check(ok, ErrorCode::kInternal, "SHA-256 failed in OpenSSL");
  return std::string(reinterpret_cast<const char*>(digest), len);
}

std::optional<std::string> Authenticator::Verify(const std::string& scheme, const std::string& user,
                                                 const std::string& secret) {
  const std::string key = CacheKey(scheme, user, secret);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      const auto now = std::chrono::steady_clock::now();
      auto it = cache_.find(key);
      if (it != cache_.end()) {
        if (it->second.expires > now) {
          lru_.splice(lru_.begin(), lru_, it->second.lru);
          if (it->second.user.empty()) return std::nullopt;
          return it->second.user;
        }
        lru_.erase(it->second.lru);
        cache_.erase(it);
      }
      // The same credentials arriving on many connections at once run one KDF, not one each.
      if (pending_.count(key) == 0) break;
      verified_.wait(lock);
    }
    pending_.insert(key);
  }
  // The KDF runs outside the lock: other callers keep hitting the cache meanwhile.
  std::string found;
  try {
    for (const UserEntry& u : users_) {
      if (scheme == "basic" && u.name != user) continue;
      for (const std::string& hash : u.secrets)
        if (VerifySecret(secret, hash)) {
          found = u.name;
          break;
        }
      if (!found.empty()) break;
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.erase(key);
    verified_.notify_all();
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.erase(key);
  const auto now = std::chrono::steady_clock::now();
  lru_.push_front(key);
  cache_[key] = Cached{found, now + (found.empty() ? kBadLifetime : kGoodLifetime), lru_.begin()};
  while (cache_.size() > kMaxCached) {
    cache_.erase(lru_.back());
    lru_.pop_back();
  }
  verified_.notify_all();
  if (found.empty()) return std::nullopt;
  return found;
}

Caller Authenticator::Authenticate(const std::string& authorization) {
  Caller caller;
  if (authorization.empty()) return caller;
  if (!enabled() || authorization.size() > kMaxCredentialBytes) {
    caller.bad_credentials = true;
    return caller;
  }
  std::string rest;
  std::optional<std::string> user;
  if (SchemeIs(authorization, "Basic", &rest)) {
    std::string decoded;
    const size_t colon = Base64Decode(rest, &decoded) ? decoded.find(':') : std::string::npos;
    if (colon != std::string::npos && colon > 0 && colon + 1 < decoded.size())
      user = Verify("basic", decoded.substr(0, colon), decoded.substr(colon + 1));
    OPENSSL_cleanse(decoded.data(), decoded.size());
  } else if (SchemeIs(authorization, "Bearer", &rest)) {
    if (!rest.empty()) user = Verify("bearer", "", rest);
  }
  OPENSSL_cleanse(rest.data(), rest.size());
  if (user) caller.user = *user;
  else caller.bad_credentials = true;
  return caller;
}

bool Authenticator::CanRead(const DatasetEntry& dataset, const Caller& caller) const {
  if (!enabled() || dataset.is_public) return true;
  if (!caller.authenticated()) return false;
  return std::any_of(dataset.readers.begin(), dataset.readers.end(),
                     [&](const std::string& r) { return r == caller.user || r == "*"; });
}

}  // namespace hzio::server
