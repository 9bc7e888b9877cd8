/// A small blocking HTTP GET client over libcurl for remote datasets (idx-format.md §7): easy
/// handles are pooled so connections are reused across requests and threads, transient failures
/// (connection refused/reset, timeouts, 502/503/504) are retried a bounded number of times, and
/// header names are matched case-insensitively (§7.1).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace hzio::internal_remote {

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;

  /// Header value by name (any case), or "" when absent.
  std::string Header(const std::string& name) const;
  bool HasHeader(const std::string& name) const;
};

class HttpClient {
 public:
  struct Options {
    int max_attempts = 3;           // first try plus retries of transient failures
    long connect_timeout_ms = 10000;
    long timeout_ms = 600000;       // whole transfer (large box queries take time)
    int max_idle_handles = 16;
    /// PEM file of the CAs that may sign an https server's certificate (a self-signed deployment);
    /// "" = the system's store. Defaults to the HZIO_CA_FILE environment variable.
    std::string ca_file = DefaultCaFile();
  };
  /// $HZIO_CA_FILE, or "".
  static std::string DefaultCaFile();

  HttpClient();
  explicit HttpClient(Options options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// GETs `url`. Returns any HTTP status (callers decide what a 404 means); throws
  /// hzio::Error(kUnavailable) naming the URL when no response arrived after the retries.
  HttpResponse Get(const std::string& url);

 private:
  void* TakeHandle();
  void ReturnHandle(void* handle);

  Options options_;
  std::mutex mutex_;
  std::vector<void*> idle_;  // CURL* easy handles with their live connections
};

}  // namespace hzio::internal_remote
