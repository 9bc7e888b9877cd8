/// The OpenVisus `mod_visus` protocol (idx-format.md §7) as a pure request -> reply function:
/// dispatch (§7.2), `list` (§7.3), `readdataset` (§7.4), `blockquery`/`rangequery` (§7.5),
/// `boxquery` (§7.6), `pointquery` (§7.7), `ping`/`info`, with the status codes and `visus-errormsg` texts of §7.8.
#pragma once

#include "handlers/server_context.h"
#include "http/message.h"
#include "http/query_string.h"

namespace hzio::server {

/// Handles a request whose path is `/mod_visus` (already parsed into `query`).
Reply HandleModVisus(ServerContext& context, const Request& request, const QueryString& query);

// The actions, exposed for tests.
Reply ModVisusList(ServerContext& context, const Request& request, const QueryString& query);
Reply ModVisusReadDataset(ServerContext& context, const Request& request, const QueryString& query);
Reply ModVisusBlockQuery(ServerContext& context, const Request& request, const QueryString& query);
Reply ModVisusBoxQuery(ServerContext& context, const Request& request, const QueryString& query);
Reply ModVisusPointQuery(ServerContext& context, const Request& request, const QueryString& query);

/// Replaces `$(protocol)`, `$(hostname)`, `$(port)` with the query's values when given (§7.3).
std::string ReplaceUrlPlaceholders(std::string text, const QueryString& query);

}  // namespace hzio::server
