/// What `hzio serve` is configured with (design.md §3, §5): datasets from `PATH`, `NAME=PATH`
/// and directory arguments or a `--config` JSON file, the bind address, cache size and the
/// limits that keep one client from starving the others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hzio::server {

struct DatasetEntry {
  std::string name;
  std::string path;   // .idx file
  std::string group;  // "" = top level of `action=list`
  bool is_public = false;            // config "public": readable without credentials
  std::vector<std::string> readers;  // config "readers": user names ("*" = any authenticated user)
};

/// A token bucket: `requests_per_second` refill, `burst` capacity (0 rate = unlimited).
struct RateLimit {
  double requests_per_second = 0;
  double burst = 0;
};

/// A user of the config's "users": secrets are hashes made by `hzio passwd` (password_hash.h).
struct UserEntry {
  std::string name;
  std::vector<std::string> secrets;
  std::optional<RateLimit> rate_limit;  // overrides the global one for this user
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string web_root;  // "" = the default (source tree's web/, else installed share/hzio/web)
  std::vector<DatasetEntry> datasets;

  int64_t cache_bytes = int64_t{256} << 20;      // decoded-block LRU cache
  int64_t max_query_bytes = int64_t{1024} << 20;  // largest box/block reply before encoding (413)
  int64_t max_blocks_per_query = 4096;            // block ids in one blockquery (413)
  int worker_threads = 0;                          // 0 = hardware concurrency (at least 2)
  int io_threads = 1;
  int max_connections = 512;
  int max_pipeline = 16;             // queued requests per connection before reading pauses
  uint32_t header_limit = 16 * 1024;
  uint64_t body_limit = 64 * 1024;
  int read_timeout_seconds = 30;     // a whole request (headers and body) must arrive in this time
  int write_timeout_seconds = 60;
  int idle_timeout_seconds = 60;     // keep-alive wait between requests
  int max_age_seconds = 3600;        // Cache-Control max-age of dataset replies
  int wire_zip_level = 1;            // zlib level of replies asked for as plain `zip`
  bool access_log = false;           // one JSON line per request (stderr, or access_log_file)
  std::string access_log_file;       // "" = stderr

  // TLS (Boost.Beast over OpenSSL): with a certificate and key, `port` serves HTTPS (TLS 1.2+).
  std::string tls_cert, tls_key;
  int http_port = -1;                // a plain-HTTP listener beside HTTPS (-1 = none, 0 = any free port)

  // Users and access (auth/authenticator.h). No users: every dataset is public, as before.
  std::vector<UserEntry> users;
  RateLimit rate_limit;              // per user, else per address (0 = unlimited)
  std::optional<std::vector<std::string>> cors_origins;  // unset: "*" without users, none with users
  std::vector<std::string> trusted_proxies;  // addresses whose X-Forwarded-For names the client

  // Resources: reply bytes in flight (produced, not yet sent) are bounded by the budget; replies
  // larger than a piece are produced and sent piece by piece; a client must take each piece within
  // write_timeout_seconds + piece / min_send_bytes_per_second or it is dropped.
  int64_t reply_budget_bytes = int64_t{512} << 20;
  int64_t stream_piece_bytes = int64_t{4} << 20;
  int64_t min_send_bytes_per_second = int64_t{64} << 10;
  int64_t max_read_bytes = 0;        // decoded block bytes one query may touch (0 = 4 x max_query_bytes)
  int shutdown_grace_seconds = 3;    // SIGTERM: replies in flight get this long, then the process exits

  /// The arguments the options were parsed from (SIGHUP parses them again).
  std::vector<std::string> args;
};

/// Parses the arguments after `serve` (argv[0] is skipped). Throws hzio::Error naming the
/// argument, file or key that was wrong. `--help` sets `help` and returns.
ServerOptions ParseServeArgs(int argc, char** argv, bool* help);

/// Reads a `--config` JSON file into `options` (datasets are appended; relative paths are relative
/// to the file's folder).
void LoadConfigFile(const std::string& path, ServerOptions* options);

/// Checks what spans several keys: dataset names unique, readers naming configured users, TLS
/// certificate and key given together. Throws hzio::Error naming the offending entry.
void CheckServeOptions(const ServerOptions& options);

/// Warnings for a configuration that exposes data: a non-loopback bind without TLS, or without
/// any access list. One line each, without a trailing newline.
std::vector<std::string> ExposureWarnings(const ServerOptions& options);

/// The decoded block bytes one query may touch (max_read_bytes, or its default).
int64_t MaxReadBytes(const ServerOptions& options);

/// Dataset entries for one command-line argument: `NAME=PATH` or `PATH`, where PATH is a .idx file
/// or a folder scanned recursively for .idx files (sorted). Unnamed datasets take their file stem,
/// or their parent folder's name when the stem is `visus`.
std::vector<DatasetEntry> DatasetsFromArgument(const std::string& arg, const std::string& group = "");

/// Checks names are unique and non-empty; throws naming the duplicate and both paths.
void CheckDatasetNames(const std::vector<DatasetEntry>& datasets);

std::string ServeUsage();

}  // namespace hzio::server
