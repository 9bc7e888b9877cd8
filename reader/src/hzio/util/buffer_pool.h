/// Large scratch buffers reused across collective writes and reads in one process. A checkpoint
/// or restart needs the same big buffers (aggregator windows, decoded blocks, fetched samples)
/// again and again; fresh memory is paid for page by page on first touch (slow in virtual
/// machines), and whether the heap hands warm memory back depends on allocator heuristics. The
/// pool keeps buffers given back, up to a bound, and hands the best fit out again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "hzio/util/large_allocation.h"

namespace hzio {

class BufferPool {
 public:
  /// Memory kept for reuse beyond this is released (oldest first); smaller buffers than
  /// kMinPooledBytes are not worth keeping (the heap recycles those well).
  static constexpr size_t kMaxRetainedBytes = size_t{256} << 20;
  static constexpr size_t kMinPooledBytes = size_t{64} << 10;

  /// The process-wide pool.
  static BufferPool& Shared();

  /// A buffer of at least `bytes` (uninitialised): the smallest retained one that fits, else a
  /// new one with `pages`.
  LargeAllocation Take(size_t bytes, LargeAllocation::Pages pages = LargeAllocation::Pages::kHuge);
  /// Gives a buffer back for reuse.
  void Give(LargeAllocation buffer);
  size_t retained_bytes() const;

 private:
  mutable std::mutex mu_;
  std::vector<LargeAllocation> free_;  // oldest first
  size_t retained_ = 0;
};

/// A pool buffer for the lifetime of a scope: `size()` is what was asked for.
class PooledBuffer {
 public:
  PooledBuffer() = default;
  explicit PooledBuffer(size_t bytes, LargeAllocation::Pages pages = LargeAllocation::Pages::kHuge)
      : memory_(BufferPool::Shared().Take(bytes, pages)), size_(bytes) {}
  ~PooledBuffer() {
    if (memory_.data()) BufferPool::Shared().Give(std::move(memory_));
  }
  PooledBuffer(PooledBuffer&& other) noexcept = default;
  PooledBuffer& operator=(PooledBuffer&& other) noexcept {
    if (this != &other) {
      if (memory_.data()) BufferPool::Shared().Give(std::move(memory_));
      memory_ = std::move(other.memory_);
      size_ = other.size_;
      other.size_ = 0;
    }
    return *this;
  }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;

  uint8_t* data() const { return memory_.data(); }
  size_t size() const { return size_; }

 private:
  LargeAllocation memory_;
  size_t size_ = 0;
};

}  // namespace hzio
