#include "handlers/caching.h"

#include <cstdio>

#include "hzio/util/strings.h"

namespace hzio::server {

uint64_t Fnv1a(const std::string& text, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string MakeEtag(uint64_t generation, const std::string& kind, const std::map<std::string, std::string>& params) {
  std::string key = kind;
  for (const auto& [k, v] : params) key += '\n' + k + '=' + v;
  uint64_t h = Fnv1a(key, generation ^ 1469598103934665603ull);
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(h));
  return buf;
}

bool EtagMatches(const Request& request, const std::string& etag) {
  std::string inm = request.Header("If-None-Match");
  if (inm.empty()) return false;
  for (const std::string& piece : Split(inm, ',')) {
    std::string t = Trim(piece);
    if (t == "*" || t == etag) return true;
  }
  return false;
}

Reply NotModified(const std::string& etag, int max_age_seconds) {
  Reply r;
  r.status = 304;
  MarkCacheable(r, etag, max_age_seconds);
  return r;
}

void MarkCacheable(Reply& reply, const std::string& etag, int max_age_seconds) {
  reply.Set("ETag", etag);
  reply.Set("Cache-Control", "public, max-age=" + std::to_string(max_age_seconds));
}

}  // namespace hzio::server
