#include "handlers/router.h"

#include <algorithm>

#include "handlers/array_body.h"
#include "handlers/json_api.h"
#include "handlers/mod_visus_handler.h"
#include "handlers/static_files.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

bool AllowsAnyOrigin(const ServerContext& context) {
  if (context.options.cors_origins)
    return std::find(context.options.cors_origins->begin(), context.options.cors_origins->end(), "*") !=
           context.options.cors_origins->end();
  return !context.auth.enabled();  // as before access lists existed
}

void AddCors(const ServerContext& context, const Request& request, Reply& r) {
  if (AllowsAnyOrigin(context)) {
    r.Set("Access-Control-Allow-Origin", "*");
  } else {
    const std::string origin = request.Header("Origin");
    const auto& allowed = context.options.cors_origins;
    if (!origin.empty() && allowed && std::find(allowed->begin(), allowed->end(), origin) != allowed->end())
      r.Set("Access-Control-Allow-Origin", origin);
    r.Set("Vary", r.Has("Vary") ? r.Get("Vary") + ", Origin" : "Origin");
  }
  if (!r.Has("Access-Control-Allow-Origin")) return;
  std::string expose = r.Get("Access-Control-Expose-Headers");
  std::string extra;
  for (const auto& [k, v] : r.headers)
    if (StartsWith(k, "X-Hzio-")) extra += (extra.empty() ? "" : ",") + k;
  if (!extra.empty() || r.Has("ETag")) {
    if (r.Has("ETag")) extra += std::string(extra.empty() ? "" : ",") + "ETag";
    r.Set("Access-Control-Expose-Headers", expose.empty() ? extra : expose + "," + extra);
  }
}

Reply ErrorFor(const RouteInfo& route, int status, const std::string& code, const std::string& message) {
  return RouteError(route.name, status, code, message);
}

Reply Unauthorized(const RouteInfo& route, const std::string& message) {
  Reply r = ErrorFor(route, 401, "unauthorized", message);
  r.Set("WWW-Authenticate", kWwwAuthenticate);
  r.Set("Cache-Control", "no-store");
  return r;
}

Reply Dispatch(ServerContext& context, const Request& request, const QueryString& query) {
  if (request.method != "GET" && request.method != "HEAD") {
    Reply r = JsonError(405, "method_not_allowed", "method " + request.method + " is not allowed; use GET");
    r.Set("Allow", "GET, HEAD, OPTIONS");
    return r;
  }
  const std::string& path = query.path();
  if (path == "/mod_visus" || path == "/mod_visus/") return HandleModVisus(context, request, query);
  if (path == "/api/v1" || StartsWith(path, "/api/v1/")) return HandleJsonApi(context, request, query);
  if (StartsWith(path, "/api/")) return JsonError(404, "not_found", "no API endpoint " + path + " (use /api/v1/)");
  return HandleStaticFile(context, request, query);
}

// Runs the handler; a dataset that committed a new version under the reply (kChanged) is
// answered again from the new version, once.
Reply DispatchWithRetry(ServerContext& context, const Request& request, const QueryString& query,
                        const RouteInfo& route) {
  for (int attempt = 0;; ++attempt) {
    try {
      return Dispatch(context, request, query);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kChanged) throw;
      if (attempt >= 1)
        return ErrorFor(route, 503, "changed",
                        std::string(e.what()) + " (the dataset changed again while it was read twice; retry)");
    }
  }
}

Reply Route(ServerContext& context, Request& request, const QueryString& query, const RouteInfo& route) {
  if (request.method == "OPTIONS") {
    Reply r;
    r.status = 204;
    r.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
    r.Set("Access-Control-Allow-Headers", "Authorization, If-None-Match, Range, Content-Type");
    r.Set("Access-Control-Max-Age", "86400");
    return r;
  }
  request.caller = context.auth.Authenticate(request.Header("Authorization"));
  if (request.caller.bad_credentials) {
    context.metrics.AuthFailure();
    return Unauthorized(route, "the credentials sent were not accepted");
  }
  const UserEntry* user = request.caller.authenticated() ? context.auth.FindUser(request.caller.user) : nullptr;
  const RateLimit& limit = user && user->rate_limit ? *user->rate_limit : context.options.rate_limit;
  const std::string client = user ? "user:" + user->name : "addr:" + request.remote_address;
  if (int retry = context.shared->limiter.Take(client, limit)) {
    context.metrics.RateLimited();
    Reply r = ErrorFor(route, 429, "rate_limited",
                       "too many requests from " + (user ? "user '" + user->name + "'" : request.remote_address) +
                           "; retry after " + std::to_string(retry) + " s");
    r.Set("Retry-After", std::to_string(retry));
    r.Set("Cache-Control", "no-store");
    return r;
  }
  if (context.auth.enabled() && !route.dataset.empty() && !request.caller.authenticated()) {
    const DatasetEntry* entry = context.registry.Entry(route.dataset);
    if (!entry || !entry->is_public)
      return Unauthorized(route, "dataset(" + route.dataset + ") needs credentials (HTTP Basic or Bearer)");
  }
  return DispatchWithRetry(context, request, query, route);
}

}  // namespace

Reply RouteError(const std::string& route, int status, const std::string& code, const std::string& message) {
  Reply r;
  if (StartsWith(route, "mod_visus")) {
    r = VisusError(status, message, __FILE__, __LINE__);
    AddVisusCommonHeaders(r);
  } else {
    r = JsonError(status, code, message);
  }
  r.route = route;
  return r;
}

RouteInfo ClassifyRoute(const QueryString& query) {
  RouteInfo info;
  const std::string& path = query.path();
  if (path == "/mod_visus" || path == "/mod_visus/") {
    info.mod_visus = true;
    std::string action = query.GetOr("action", "");
    if (!query.Has("action")) action = query.Has("dataset") ? "readdataset" : "list";
    static const char* const kActions[] = {"readdataset", "read_dataset", "list",  "blockquery", "rangequery",
                                           "boxquery",    "query",        "ping",  "info",       "pointquery"};
    const bool known = std::find(std::begin(kActions), std::end(kActions), action) != std::end(kActions);
    info.name = "mod_visus:" + (known ? action : std::string("other"));
    if (known && action != "list" && action != "ping" && action != "info") info.dataset = query.GetOr("dataset", "");
    return info;
  }
  const std::string prefix = "/api/v1/datasets/";
  if (StartsWith(path, prefix) && path.size() > prefix.size()) {
    std::string rest = path.substr(prefix.size());
    const bool data = rest.size() > 5 && rest.compare(rest.size() - 5, 5, "/data") == 0;
    if (data) rest.resize(rest.size() - 5);
    info.name = data ? "api:data" : "api:dataset";
    info.dataset = rest;
    return info;
  }
  if (path == "/api/v1/datasets" || path == "/api/v1/datasets/") info.name = "api:datasets";
  else if (path == "/api/v1/health" || path == "/api/v1/health/") info.name = "api:health";
  else if (StartsWith(path, "/api/")) info.name = "api:other";
  else if (path == "/metrics") info.name = "metrics";
  else if (StartsWith(path, "/health/")) info.name = "health";
  else info.name = "static";
  return info;
}

std::string ClientAddress(const Request& request, const std::vector<std::string>& trusted_proxies) {
  if (std::find(trusted_proxies.begin(), trusted_proxies.end(), request.remote_address) == trusted_proxies.end())
    return request.remote_address;
  const std::string forwarded = request.Header("X-Forwarded-For");
  if (forwarded.empty()) return request.remote_address;
  // The proxy appends the address it saw last; earlier entries are whatever the client claimed.
  std::vector<std::string> hops = Split(forwarded, ',');
  std::string last = Trim(hops.back());
  return last.empty() ? request.remote_address : last;
}

Reply HandleRequest(ServerContext& context, Request request) {
  const std::string peer = request.remote_address;
  request.remote_address = ClientAddress(request, context.options.trusted_proxies);
  if (request.remote_address != peer && ToLower(request.Header("X-Forwarded-Proto")) == "https") request.secure = true;
  Reply r;
  RouteInfo route;
  try {
    QueryString query = QueryString::ParseTarget(request.target);
    route = ClassifyRoute(query);
    r = Route(context, request, query, route);
  } catch (const Error& e) {
    r = JsonErrorFrom(e);
  } catch (const std::exception& e) {
    r = JsonError(500, "internal", e.what());
  }
  if (route.name.empty()) route.name = "invalid";
  r.route = route.name;
  r.user = request.caller.user;
  if (context.auth.enabled()) {
    // Replies depend on who asks: shared caches must not hand one caller's reply to another.
    r.Set("Vary", r.Has("Vary") ? r.Get("Vary") + ", Authorization" : "Authorization");
    const DatasetEntry* entry = route.dataset.empty() ? nullptr : context.registry.Entry(route.dataset);
    const std::string cc = r.Get("Cache-Control");
    if (entry && !entry->is_public && StartsWith(cc, "public")) r.Set("Cache-Control", "private" + cc.substr(6));
  }
  AddCors(context, request, r);
  return r;
}

}  // namespace hzio::server
