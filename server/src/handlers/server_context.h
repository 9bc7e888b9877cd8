/// What handlers see: the datasets and options of the current configuration generation (SIGHUP
/// builds a new one), who may read what, and the parts shared by every generation (block cache,
/// metrics, rate limiter). Handlers are pure functions of (context, request) -> reply.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "auth/authenticator.h"
#include "auth/rate_limiter.h"
#include "config/dataset_registry.h"
#include "config/server_options.h"
#include "http/message.h"
#include "hzio/access/block_cache.h"
#include "metrics/metrics.h"

namespace hzio::server {

/// Process-wide state that outlives configuration reloads.
struct ServerShared {
  explicit ServerShared(int64_t cache_bytes) : cache(cache_bytes) {}
  BlockCache cache;
  Metrics metrics;
  RateLimiter limiter;
};

struct ServerContext {
  ServerContext(DatasetRegistry r, ServerOptions o, std::shared_ptr<ServerShared> s = nullptr)
      : registry(std::move(r)),
        options(std::move(o)),
        shared(s ? std::move(s) : std::make_shared<ServerShared>(options.cache_bytes)),
        cache(shared->cache),
        metrics(shared->metrics),
        auth(options.users) {}

  DatasetRegistry registry;
  ServerOptions options;
  std::shared_ptr<ServerShared> shared;
  BlockCache& cache;
  Metrics& metrics;
  Authenticator auth;
  std::string web_root;  // resolved static-file folder ("" = none: a placeholder page is served)

  /// The current version of dataset `name` if `request`'s caller may read it; nullptr otherwise,
  /// exactly as for a name that does not exist (nothing leaks).
  std::shared_ptr<const ServedDataset> FindReadable(const Request& request, const std::string& name) const {
    const DatasetEntry* entry = registry.Entry(name);
    if (!entry || !auth.CanRead(*entry, request.caller)) return nullptr;
    return registry.Find(name);
  }

  /// The entries `request`'s caller may read, in configuration order (lists).
  std::vector<const DatasetEntry*> Visible(const Request& request) const {
    std::vector<const DatasetEntry*> out;
    for (const DatasetEntry* e : registry.Entries())
      if (auth.CanRead(*e, request.caller)) out.push_back(e);
    return out;
  }
};

}  // namespace hzio::server
