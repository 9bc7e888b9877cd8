/// Operations endpoints, answered on the I/O threads without the worker pool (so they answer while
/// every worker is busy or stuck) and without authentication or rate limits (load balancers and
/// Prometheus poll them): `/health/live` (the process serves), `/health/ready` (it accepts work:
/// not shutting down, worker queue not over its bound), `/metrics` (Prometheus text format 0.0.4)
/// and the JSON `/api/v1/health`.
#pragma once

#include <string_view>

#include "handlers/server_context.h"
#include "http/message.h"

namespace hzio::server {

/// Whether `target` (path and query) is one of the operations endpoints.
bool IsOperationsTarget(std::string_view target);

/// Replies to an operations request; `ready` says whether the server accepts work now and
/// `not_ready_reason` why not.
Reply HandleOperations(ServerContext& context, const Request& request, const MetricsGauges& gauges, bool ready,
                       const std::string& not_ready_reason);

}  // namespace hzio::server
