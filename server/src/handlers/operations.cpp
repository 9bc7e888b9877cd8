#include "handlers/operations.h"

#include <nlohmann/json.hpp>

#include "handlers/json_api.h"
#include "handlers/router.h"

namespace hzio::server {

namespace {

std::string_view PathOf(std::string_view target) { return target.substr(0, target.find('?')); }

Reply Text(int status, std::string body, const char* type) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  r.Set("Content-Type", type);
  r.Set("Cache-Control", "no-store");
  return r;
}

}  // namespace

bool IsOperationsTarget(std::string_view target) {
  const std::string_view p = PathOf(target);
  return p == "/health/live" || p == "/health/ready" || p == "/metrics" || p == "/api/v1/health" ||
         p == "/api/v1/health/";
}

Reply HandleOperations(ServerContext& context, const Request& request, const MetricsGauges& gauges, bool ready,
                       const std::string& not_ready_reason) {
  const std::string_view path = PathOf(request.target);
  Reply r;
  if (request.method != "GET" && request.method != "HEAD") {
    r = JsonError(405, "method_not_allowed", "method " + request.method + " is not allowed; use GET");
    r.Set("Allow", "GET, HEAD");
  } else if (path == "/health/live") {
    r = Text(200, "{\"status\":\"live\"}", "application/json");
  } else if (path == "/health/ready") {
    r = ready ? Text(200, "{\"status\":\"ready\"}", "application/json")
              : JsonError(503, "unavailable", "not ready: " + not_ready_reason);
    if (!ready) r.Set("Retry-After", "1");
  } else if (path == "/metrics") {
    r = Text(200, context.metrics.Render(gauges), "text/plain; version=0.0.4; charset=utf-8");
  } else {
    // The JSON health of design.md §5, with the cache figures sampled now; anonymous (no KDF on
    // an I/O thread), so "datasets" counts what anyone may read.
    Request anonymous = request;
    anonymous.caller = Caller{};
    r = HandleJsonApi(context, anonymous, QueryString::ParseTarget("/api/v1/health"));
    nlohmann::json j = nlohmann::json::parse(r.body);
    j["ready"] = ready;
    j["connections"] = gauges.open_connections;
    j["queue_depth"] = gauges.queue_depth;
    j["reply_bytes_in_flight"] = gauges.reply_bytes_in_flight;
    r.body = j.dump();
  }
  r.route = path == "/api/v1/health" || path == "/api/v1/health/" ? "api:health"
            : path == "/metrics"                                   ? "metrics"
                                                                   : "health";
  if (!context.options.cors_origins && !context.auth.enabled()) r.Set("Access-Control-Allow-Origin", "*");
  return r;
}

}  // namespace hzio::server
