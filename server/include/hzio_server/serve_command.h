/// `hzio serve` (design.md §5): serves datasets over HTTP with the OpenVisus mod_visus protocol
/// (idx-format.md §7), a JSON API under /api/v1/ and the static web viewer at /.
#pragma once

namespace hzio::server {

/// Runs `hzio serve ARGS...` (argv[0] is "serve" or the program name) until SIGINT/SIGTERM.
/// Prints `hzio serve: listening on http://HOST:PORT/` once bound; returns the exit status
/// (non-zero after printing one line naming what was wrong to stderr).
int RunServeCommand(int argc, char** argv);

}  // namespace hzio::server
