/// HTTP caching of dataset replies: a strong ETag computed from what identifies the reply (the
/// dataset's generation and the request's normalised parameters) before any work is done, so a
/// revalidation (`If-None-Match`) costs nothing; plus `Cache-Control` for immutable data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "http/message.h"

namespace hzio::server {

/// `"<16 hex digits>"` from the dataset generation, a reply kind and the parameters that matter.
std::string MakeEtag(uint64_t generation, const std::string& kind, const std::map<std::string, std::string>& params);

/// Whether the request's If-None-Match lists `etag` (or `*`).
bool EtagMatches(const Request& request, const std::string& etag);

/// A 304 reply carrying the validators of the full reply.
Reply NotModified(const std::string& etag, int max_age_seconds);

/// Adds ETag and `Cache-Control: public, max-age=N` to a dataset reply.
void MarkCacheable(Reply& reply, const std::string& etag, int max_age_seconds);

/// 64-bit FNV-1a.
uint64_t Fnv1a(const std::string& text, uint64_t seed = 1469598103934665603ull);

}  // namespace hzio::server
