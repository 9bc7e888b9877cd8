#include "hzio/util/buffer_pool.h"

#include <utility>

namespace hzio {

BufferPool& BufferPool::Shared() {
  static BufferPool* pool = new BufferPool();  // never destroyed: buffers may be given back at exit
  return *pool;
}

LargeAllocation BufferPool::Take(size_t bytes, LargeAllocation::Pages pages) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i].size() >= bytes && (best == free_.size() || free_[i].size() < free_[best].size())) best = i;
    if (best < free_.size()) {
      LargeAllocation found = std::move(free_[best]);
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
      retained_ -= found.size();
      return found;
    }
  }
  return LargeAllocation(bytes, pages);
}

void BufferPool::Give(LargeAllocation buffer) {
  if (buffer.size() < kMinPooledBytes || buffer.size() > kMaxRetainedBytes) return;  // released here
  std::vector<LargeAllocation> released;  // freed outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    retained_ += buffer.size();
    free_.push_back(std::move(buffer));
    while (retained_ > kMaxRetainedBytes) {
      retained_ -= free_.front().size();
      released.push_back(std::move(free_.front()));
      free_.erase(free_.begin());
    }
  }
}

size_t BufferPool::retained_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return retained_;
}

}  // namespace hzio
