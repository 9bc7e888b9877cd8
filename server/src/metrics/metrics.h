/// Process-wide counters of the server, exposed at `/metrics` in the Prometheus text format
/// (version 0.0.4): requests by route and status, latency histograms by route, bytes sent,
/// authentication failures, rate-limited requests, and gauges sampled when scraped (connections,
/// worker queue depth, reply bytes in flight, block cache). Routes are a small fixed set of
/// labels (never raw paths), so the number of series stays bounded.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace hzio::server {

/// Upper bounds (seconds) of the latency histogram's buckets.
inline constexpr std::array<double, 12> kLatencyBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                           0.1,   0.25,   0.5,   1.0,  2.5,   10.0};

/// Values sampled at scrape time by the transport layer.
struct MetricsGauges {
  int64_t open_connections = 0;
  int64_t queue_depth = 0;          // requests waiting for a worker
  int64_t busy_workers = 0;
  int64_t reply_bytes_in_flight = 0;
  int64_t reply_budget_bytes = 0;
  int64_t cache_hits = 0, cache_misses = 0, cache_evictions = 0, cache_entries = 0, cache_bytes = 0,
          cache_capacity = 0;
  int64_t datasets = 0;
};

class Metrics {
 public:
  /// Records one finished request.
  void Observe(const std::string& route, int status, double seconds, int64_t bytes_out);
  void AuthFailure() { ++auth_failures_; }
  void RateLimited() { ++rate_limited_; }
  void BudgetRejected() { ++budget_rejected_; }
  void Reload(bool ok) { ++(ok ? reloads_ : reload_failures_); }
  void DatasetReopened() { ++dataset_reopens_; }

  /// The exposition text.
  std::string Render(const MetricsGauges& gauges) const;

 private:
  struct Histogram {
    std::array<int64_t, kLatencyBuckets.size()> buckets{};
    int64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, int64_t> requests_;
  std::map<std::string, Histogram> latency_;
  std::map<std::string, int64_t> bytes_out_;
  std::atomic<int64_t> auth_failures_{0}, rate_limited_{0}, budget_rejected_{0}, reloads_{0}, reload_failures_{0},
      dataset_reopens_{0};
};

}  // namespace hzio::server
