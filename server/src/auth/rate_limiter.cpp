#include "auth/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace hzio::server {

namespace {
constexpr size_t kSweepAbove = 10000;  // buckets kept before idle ones are swept
}

int RateLimiter::Take(const std::string& client, const RateLimit& limit, Clock::time_point now) {
  if (limit.requests_per_second <= 0) return 0;
  const double burst = std::max(1.0, limit.burst);
  std::lock_guard<std::mutex> lock(mutex_);
  if (buckets_.size() > kSweepAbove && now - last_sweep_ > std::chrono::seconds(1)) Sweep(now);
  auto [it, inserted] = buckets_.try_emplace(client, Bucket{burst, now});
  Bucket& b = it->second;
  if (!inserted) {
    const double elapsed = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(burst, b.tokens + std::max(0.0, elapsed) * limit.requests_per_second);
    b.last = now;
  }
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return 0;
  }
  return std::max(1, static_cast<int>(std::ceil((1.0 - b.tokens) / limit.requests_per_second)));
}

void RateLimiter::Sweep(Clock::time_point now) {
  // A bucket idle for a minute is full again for any sane rate: forgetting it changes nothing.
  for (auto it = buckets_.begin(); it != buckets_.end();)
    it = now - it->second.last > std::chrono::minutes(1) ? buckets_.erase(it) : std::next(it);
  last_sweep_ = now;
}

size_t RateLimiter::Buckets() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buckets_.size();
}

}  // namespace hzio::server
