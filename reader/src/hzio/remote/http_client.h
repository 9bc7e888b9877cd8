/// The one HTTP transport of hzio (idx-format.md §7 for mod_visus; plain web servers and S3 for
/// object stores): libcurl multi handles keep many requests in flight on the calling thread
/// (up to 64 by default, as OpenVisus's NetService), connections are reused across requests and
/// calls (idle multi handles keep their connection caches), transient failures — connection
/// errors, timeouts, stalled transfers, 5xx and 429 — are retried a bounded number of times with
/// exponential backoff and full jitter, other 4xx never. Every transfer has a connect timeout, a
/// stall timeout and a per-attempt limit, so a request ends within a bounded time whatever the
/// peer does: nothing hangs. Header names are matched case-insensitively (§7.1).
///
/// Limits come from Options; HZIO_HTTP_CONNECT_TIMEOUT_MS, HZIO_HTTP_STALL_TIMEOUT_MS,
/// HZIO_HTTP_TIMEOUT_MS, HZIO_HTTP_ATTEMPTS and HZIO_HTTP_IN_FLIGHT override the defaults
/// (Options::FromEnvironment); HZIO_CA_FILE names the CAs of a self-signed https server.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hzio::internal_remote {

struct HttpRequest {
  std::string method = "GET";  // GET, HEAD, PUT, POST, DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<const std::string> body;  // sent with PUT/POST (none: empty body)
  size_t max_body_bytes = 0;                // a longer response is an error; 0: Options::max_body_bytes
};

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
    int max_attempts = 4;               // first try plus retries of transient failures
    long connect_timeout_ms = 10000;
    long stall_timeout_ms = 30000;      // a transfer receiving nothing for this long is aborted
    long attempt_timeout_ms = 600000;   // one whole transfer (large box queries take time)
    long backoff_base_ms = 100;         // retry n waits a random time in [0, base * 2^n], at most max
    long backoff_max_ms = 5000;
    int max_in_flight = 64;             // requests at once per PerformMany call
    size_t max_body_bytes = size_t{4} << 30;
    int max_idle_agents = 8;            // multi handles (with their connections) kept between calls
    /// PEM file of the CAs that may sign an https server's certificate (a self-signed deployment);
    /// "" = the system's store. Defaults to the HZIO_CA_FILE environment variable.
    std::string ca_file = DefaultCaFile();

    /// The defaults, overridden by the HZIO_HTTP_* environment variables named above.
    static Options FromEnvironment();
  };
  /// $HZIO_CA_FILE, or "".
  static std::string DefaultCaFile();

  /// Called before every attempt of a request, on the calling thread: signs it (a fresh date for
  /// each retry) or adds headers. It edits a copy; the caller's request is never changed.
  using Prepare = std::function<void(HttpRequest&)>;
  /// Receives the response of request `index` (any HTTP status: callers decide what a 404 means).
  using OnResponse = std::function<void(size_t index, HttpResponse&& response)>;

  HttpClient();
  explicit HttpClient(Options options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Performs every request, up to max_in_flight at once, calling `on_response` on this thread as
  /// each one completes (in any order). Throws hzio::Error(kUnavailable) naming the URL when a
  /// request got no response after its retries, kTooLarge for a response over its size limit;
  /// an exception from `on_response` cancels the requests still running and propagates.
  void PerformMany(std::span<const HttpRequest> requests, const OnResponse& on_response, const Prepare& prepare = {});
  /// One request (same retries and errors).
  HttpResponse Perform(const HttpRequest& request, const Prepare& prepare = {});
  /// GETs `url`.
  HttpResponse Get(const std::string& url);

  const Options& options() const { return options_; }
  /// Attempts sent (retries included) and PerformMany/Perform calls made, since construction.
  uint64_t requests_sent() const { return requests_sent_; }
  uint64_t batches() const { return batches_; }

 private:
  struct Agent;
  std::unique_ptr<Agent> TakeAgent();
  void ReturnAgent(std::unique_ptr<Agent> agent);

  Options options_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Agent>> idle_;
  std::atomic<uint64_t> requests_sent_{0};
  std::atomic<uint64_t> batches_{0};
};

/// How many received responses may wait for the decoding pool (of `pool_threads`) before the
/// transfer thread decodes one itself: as many as requests in flight, so that the transfer thread
/// keeps the pipeline full instead of decoding while the store's answers wait (decoding is the
/// slower side on few cores). Memory stays bounded: a response per slot in flight plus one waiting.
size_t DecodeBacklog(const HttpClient& client, size_t pool_threads);

/// Whether a transfer that ended with libcurl result `curl_code` (0 = completed) and HTTP
/// `status` is worth another attempt: connection failures, timeouts, truncated transfers, 5xx and
/// 429 (throttling) are; 4xx and everything else are not.
bool IsTransientFailure(int curl_code, long status);

/// The wait before retry `retry` (1 for the first retry): uniform in [0, min(max, base * 2^retry)]
/// ("full jitter", so that many clients retrying at once spread out). `unit` in [0, 1).
long BackoffMilliseconds(int retry, long base_ms, long max_ms, double unit);

}  // namespace hzio::internal_remote
