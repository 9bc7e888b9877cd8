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
  std::string path;   // .idx file, or a URL (a web server, S3, another server: the server is a gateway)
  std::string group;  // "" = top level of `action=list`
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string web_root;  // "" = the default (source tree's web/, else installed share/hzio/web)
  std::vector<DatasetEntry> datasets;

  int64_t cache_bytes = int64_t{256} << 20;      // decoded-block LRU cache
  // Disk cache of the blocks of remote datasets (access/disk_cached_block_source.h): nullopt =
  // HZIO_CACHE_DIR or ~/.cache/hzio, "" = none (--no-cache); size 0 = HZIO_CACHE_SIZE or 10 GiB.
  std::optional<std::string> cache_dir;
  int64_t cache_max_bytes = 0;
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
  bool access_log = false;           // one line per request on stderr
};

/// Parses the arguments after `serve` (argv[0] is skipped). Throws hzio::Error naming the
/// argument, file or key that was wrong. `--help` sets `help` and returns.
ServerOptions ParseServeArgs(int argc, char** argv, bool* help);

/// Reads a `--config` JSON file into `options` (datasets are appended; relative paths are relative
/// to the file's folder).
void LoadConfigFile(const std::string& path, ServerOptions* options);

/// Dataset entries for one command-line argument: `NAME=PATH` or `PATH`, where PATH is a .idx file,
/// a folder scanned recursively for .idx files (sorted), or a dataset URL (s3://, http(s)://).
/// Unnamed datasets take their file stem, or their parent folder's name when the stem is `visus`
/// (a mod_visus URL: its dataset= name).
std::vector<DatasetEntry> DatasetsFromArgument(const std::string& arg, const std::string& group = "");

/// Checks names are unique and non-empty; throws naming the duplicate and both paths.
void CheckDatasetNames(const std::vector<DatasetEntry>& datasets);

std::string ServeUsage();

}  // namespace hzio::server
