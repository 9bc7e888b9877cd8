/// Static files of the web viewer (web/) at `/`. Paths are resolved inside the web root only:
/// `..` segments, NUL bytes and anything whose canonical path leaves the root are refused.
#pragma once

#include <string>

#include "handlers/server_context.h"
#include "http/message.h"
#include "http/query_string.h"

namespace hzio::server {

Reply HandleStaticFile(ServerContext& context, const Request& request, const QueryString& query);

/// The folder to serve when --web-root is not given: the source tree's web/ when it exists,
/// else the installed share/hzio/web, else "" (a placeholder page).
std::string DefaultWebRoot();

/// Content-Type for a file name's extension.
std::string ContentTypeForPath(const std::string& path);

}  // namespace hzio::server
