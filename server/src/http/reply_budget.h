/// The global budget of reply bytes in flight: bytes a reply holds from the moment it is produced
/// until the transport has handed them to the kernel. Whole replies reserve their size, streamed
/// replies one piece at a time; beyond the budget a reply is refused with 503 and a reason (or a
/// streamed reply waits for room), so clients that ask a lot and never read cannot make the server
/// hold more than the budget (issue 14).
#pragma once

#include <atomic>
#include <cstdint>

namespace hzio::server {

class ReplyBudget {
 public:
  explicit ReplyBudget(int64_t capacity) : capacity_(capacity) {}

  /// Reserves `bytes` if they fit; false otherwise (nothing reserved).
  bool TryReserve(int64_t bytes) {
    int64_t used = used_.load();
    do {
      if (used + bytes > capacity_) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes));
    return true;
  }
  /// Reserves `bytes` even beyond the budget (small replies: an error page must always fit).
  void Force(int64_t bytes) { used_ += bytes; }
  void Release(int64_t bytes) { used_ -= bytes; }

  int64_t used() const { return used_.load(); }
  int64_t capacity() const { return capacity_; }

 private:
  const int64_t capacity_;
  std::atomic<int64_t> used_{0};
};

}  // namespace hzio::server
