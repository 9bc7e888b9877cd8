/// Per-client token buckets (config `rate_limit: {requests_per_second, burst}`): a client is a
/// user when authenticated, else its address. A request takes one token; an empty bucket gives
/// 429 with `Retry-After` (the seconds until a token is back). Idle buckets are forgotten, so the
/// table stays small whatever the number of addresses that ever called.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

#include "config/server_options.h"

namespace hzio::server {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  /// Takes a token from `client`'s bucket with `limit` (unlimited when rate <= 0). Returns 0 when
  /// the request may go on, else the whole seconds (>= 1) after which it may be retried.
  int Take(const std::string& client, const RateLimit& limit, Clock::time_point now = Clock::now());

  size_t Buckets() const;

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  void Sweep(Clock::time_point now);

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
  Clock::time_point last_sweep_{};
};

}  // namespace hzio::server
