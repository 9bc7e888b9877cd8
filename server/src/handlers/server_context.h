/// Everything a request handler needs: the published datasets, the shared block cache and the
/// limits. Handlers are pure functions of (context, request) -> reply.
#pragma once

#include <string>

#include "config/dataset_registry.h"
#include "config/server_options.h"
#include "hzio/access/block_cache.h"

namespace hzio::server {

struct ServerContext {
  ServerContext(DatasetRegistry r, ServerOptions o)
      : registry(std::move(r)), options(std::move(o)), cache(options.cache_bytes) {}

  DatasetRegistry registry;
  ServerOptions options;
  BlockCache cache;
  std::string web_root;  // resolved static-file folder ("" = none: a placeholder page is served)
};

}  // namespace hzio::server
