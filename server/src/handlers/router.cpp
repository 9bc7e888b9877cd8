#include "handlers/router.h"

#include "handlers/json_api.h"
#include "handlers/mod_visus_handler.h"
#include "handlers/static_files.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

void AddCors(Reply& r) {
  r.Set("Access-Control-Allow-Origin", "*");
  std::string expose = r.Get("Access-Control-Expose-Headers");
  std::string extra;
  for (const auto& [k, v] : r.headers)
    if (StartsWith(k, "X-Hzio-")) extra += (extra.empty() ? "" : ",") + k;
  if (!extra.empty() || r.Has("ETag")) {
    if (r.Has("ETag")) extra += std::string(extra.empty() ? "" : ",") + "ETag";
    r.Set("Access-Control-Expose-Headers", expose.empty() ? extra : expose + "," + extra);
  }
}

Reply Dispatch(ServerContext& context, const Request& request) {
  if (request.method == "OPTIONS") {
    Reply r;
    r.status = 204;
    r.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
    r.Set("Access-Control-Allow-Headers", "*");
    r.Set("Access-Control-Max-Age", "86400");
    return r;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    Reply r = JsonError(405, "method_not_allowed", "method " + request.method + " is not allowed; use GET");
    r.Set("Allow", "GET, HEAD, OPTIONS");
    return r;
  }
  QueryString query;
  try {
    query = QueryString::ParseTarget(request.target);
  } catch (const Error& e) {
    return JsonErrorFrom(e);
  }
  const std::string& path = query.path();
  if (path == "/mod_visus" || path == "/mod_visus/") return HandleModVisus(context, request, query);
  if (path == "/api/v1" || StartsWith(path, "/api/v1/")) return HandleJsonApi(context, request, query);
  if (StartsWith(path, "/api/")) return JsonError(404, "not_found", "no API endpoint " + path + " (use /api/v1/)");
  return HandleStaticFile(context, request, query);
}

}  // namespace

Reply HandleRequest(ServerContext& context, const Request& request) {
  Reply r;
  try {
    r = Dispatch(context, request);
  } catch (const Error& e) {
    r = JsonErrorFrom(e);
  } catch (const std::exception& e) {
    r = JsonError(500, "internal", e.what());
  }
  AddCors(r);
  return r;
}

}  // namespace hzio::server
