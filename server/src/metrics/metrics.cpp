#include "metrics/metrics.h"

#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

// Shortest round-trip text of a value ("0.005", "1e+09"): what the Prometheus parser reads back.
std::string Number(double v) { return FormatShortest(v); }

void Header(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void Sample(std::string& out, const std::string& name, const std::string& labels, double value) {
  out += name;
  if (!labels.empty()) out += "{" + labels + "}";
  out += " " + Number(value) + "\n";
}

// Label values here are fixed route names; escaping is still applied so the text always parses.
std::string Label(const std::string& key, const std::string& value) {
  std::string v;
  for (char c : value) {
    if (c == '\\' || c == '"') v += '\\';
    if (c == '\n') {
      v += "\\n";
      continue;
    }
    v += c;
  }
  return key + "=\"" + v + "\"";
}

}  // namespace

void Metrics::Observe(const std::string& route, int status, double seconds, int64_t bytes_out) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{route, status}];
  Histogram& h = latency_[route];
  for (size_t i = 0; i < kLatencyBuckets.size(); ++i)
    if (seconds <= kLatencyBuckets[i]) ++h.buckets[i];
  ++h.count;
  h.sum += seconds;
  bytes_out_[route] += bytes_out;
}

std::string Metrics::Render(const MetricsGauges& g) const {
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Header(out, "hzio_http_requests_total", "counter", "HTTP requests answered, by route and status.");
    for (const auto& [key, n] : requests_)
      Sample(out, "hzio_http_requests_total", Label("route", key.first) + "," + Label("status", std::to_string(key.second)),
             static_cast<double>(n));
    Header(out, "hzio_http_request_duration_seconds", "histogram",
           "Time from a request's arrival to its reply being ready, by route.");
    for (const auto& [route, h] : latency_) {
      for (size_t i = 0; i < kLatencyBuckets.size(); ++i)
        Sample(out, "hzio_http_request_duration_seconds_bucket",
               Label("route", route) + "," + Label("le", Number(kLatencyBuckets[i])),
               static_cast<double>(h.buckets[i]));
      Sample(out, "hzio_http_request_duration_seconds_bucket", Label("route", route) + ",le=\"+Inf\"",
             static_cast<double>(h.count));
      Sample(out, "hzio_http_request_duration_seconds_sum", Label("route", route), h.sum);
      Sample(out, "hzio_http_request_duration_seconds_count", Label("route", route), static_cast<double>(h.count));
    }
    Header(out, "hzio_http_response_bytes_total", "counter", "Body bytes of replies, by route.");
    for (const auto& [route, n] : bytes_out_)
      Sample(out, "hzio_http_response_bytes_total", Label("route", route), static_cast<double>(n));
  }
  auto counter = [&](const char* name, const char* help, int64_t v) {
    Header(out, name, "counter", help);
    Sample(out, name, "", static_cast<double>(v));
  };
  auto gauge = [&](const char* name, const char* help, int64_t v) {
    Header(out, name, "gauge", help);
    Sample(out, name, "", static_cast<double>(v));
  };
  counter("hzio_auth_failures_total", "Requests whose credentials did not verify.", auth_failures_.load());
  counter("hzio_rate_limited_total", "Requests answered 429 by the per-client rate limit.", rate_limited_.load());
  counter("hzio_reply_budget_rejected_total", "Requests answered 503 because reply bytes in flight were at the budget.",
          budget_rejected_.load());
  counter("hzio_reloads_total", "Configuration reloads (SIGHUP) that took effect.", reloads_.load());
  counter("hzio_reload_failures_total", "Configuration reloads refused (the old configuration stays).",
          reload_failures_.load());
  counter("hzio_dataset_reopens_total", "Datasets reopened because their .idx changed.", dataset_reopens_.load());
  counter("hzio_cache_hits_total", "Block cache hits.", g.cache_hits);
  counter("hzio_cache_misses_total", "Block cache misses.", g.cache_misses);
  counter("hzio_cache_evictions_total", "Blocks evicted from the cache.", g.cache_evictions);
  gauge("hzio_cache_entries", "Blocks in the cache.", g.cache_entries);
  gauge("hzio_cache_bytes", "Bytes of decoded blocks in the cache.", g.cache_bytes);
  gauge("hzio_cache_capacity_bytes", "Capacity of the block cache.", g.cache_capacity);
  gauge("hzio_open_connections", "Open client connections.", g.open_connections);
  gauge("hzio_worker_queue_depth", "Requests waiting for a worker thread.", g.queue_depth);
  gauge("hzio_busy_workers", "Worker threads producing a reply.", g.busy_workers);
  gauge("hzio_reply_bytes_in_flight", "Bytes of replies produced and not yet sent.", g.reply_bytes_in_flight);
  gauge("hzio_reply_budget_bytes", "The configured budget of reply bytes in flight.", g.reply_budget_bytes);
  gauge("hzio_datasets", "Datasets served.", g.datasets);
  return out;
}

}  // namespace hzio::server
