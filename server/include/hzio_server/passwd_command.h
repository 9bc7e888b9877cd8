/// `hzio passwd` (design.md §3): reads a secret (a password for HTTP Basic, or a token for
/// Bearer) on standard input and prints its salted hash, one line, for the server config's
/// `users[].secrets`.
#pragma once

namespace hzio::server {

/// Runs `hzio passwd [--iterations N]`; returns the exit status (non-zero after one line on stderr).
int RunPasswdCommand(int argc, char** argv);

}  // namespace hzio::server
