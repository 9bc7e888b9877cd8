/// Routes a request to mod_visus (/mod_visus, idx-format.md §7), the JSON API (/api/v1/,
/// design.md §5) or the static files (/), after what every request goes through: the caller's
/// credentials (401 + WWW-Authenticate when they fail, or when an anonymous caller names a dataset
/// that is not public — known or not, so nothing leaks), the per-client rate limit (429 +
/// Retry-After), and a retry on the new version when a dataset changed under a reply. Then adds
/// CORS headers for the configured origins and makes replies of non-public datasets private.
#pragma once

#include <string>

#include "handlers/server_context.h"
#include "http/message.h"
#include "http/query_string.h"

namespace hzio::server {

Reply HandleRequest(ServerContext& context, Request request);

/// What the router knows of a request before running it: a low-cardinality route name for metrics
/// and logs, and the dataset it names ("" = none).
struct RouteInfo {
  std::string name;
  std::string dataset;
  bool mod_visus = false;
};
RouteInfo ClassifyRoute(const QueryString& query);

/// An error reply in the shape of `route` (a RouteInfo name): mod_visus's `visus-errormsg` for
/// mod_visus routes, the JSON error body otherwise.
Reply RouteError(const std::string& route, int status, const std::string& code, const std::string& message);

/// The address a request comes from: the peer, or the last X-Forwarded-For entry when the peer is
/// one of `trusted_proxies`.
std::string ClientAddress(const Request& request, const std::vector<std::string>& trusted_proxies);

}  // namespace hzio::server
