/// The JSON API under /api/v1/ (design.md §5): dataset list, metadata with every level's grid,
/// data as .npy or raw (optionally zip/lz4 compressed), health. Every error has the one shape
/// {"error":{"code":..,"message":..}} with the status chosen by one table (JsonErrorStatus).
#pragma once

#include <string>

#include "handlers/server_context.h"
#include "http/message.h"
#include "http/query_string.h"
#include "hzio/util/error.h"

namespace hzio::server {

/// Handles a request whose path starts with /api/v1.
Reply HandleJsonApi(ServerContext& context, const Request& request, const QueryString& query);

/// A JSON error reply; `code` is a short stable name ("not_found", "invalid_argument", ...).
Reply JsonError(int status, const std::string& code, const std::string& message);
/// The one mapping from library error codes to HTTP statuses.
int JsonErrorStatus(ErrorCode code);
Reply JsonErrorFrom(const Error& error);

/// Handlers turn errors into replies, except kChanged (the dataset committed a new version while
/// the reply was produced): that one reaches the router, which retries once on the new version.
inline void RethrowIfChanged(const Error& error) {
  if (error.code() == ErrorCode::kChanged) throw error;
}

}  // namespace hzio::server
