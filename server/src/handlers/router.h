/// Routes a request to mod_visus (/mod_visus, idx-format.md §7), the JSON API (/api/v1/,
/// design.md §5) or the static files (/), and adds what every reply needs: CORS headers,
/// HEAD/OPTIONS handling and a 400 for targets that do not parse.
#pragma once

#include "handlers/server_context.h"
#include "http/message.h"

namespace hzio::server {

Reply HandleRequest(ServerContext& context, const Request& request);

}  // namespace hzio::server
