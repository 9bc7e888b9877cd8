/// The per-request cost cap: the decoded block bytes a box query makes the server read
/// (idx-format.md §4.2: every block holding a sample of the result is decoded whole), bounded by
/// `max_read_mb` beside the result-size bound `max_query_mb`. A small box that cuts many large
/// blocks costs more than its result; this is what keeps one request from occupying a worker for
/// minutes.
#pragma once

#include "handlers/server_context.h"

namespace hzio::server {

/// Throws hzio::Error(kTooLarge) naming the bytes and the limit when `query` would read more
/// decoded block bytes than the server allows.
void CheckReadCost(const ServerContext& context, const ServedDataset& dataset, const Dataset::Resolved& query);

}  // namespace hzio::server
