#include "hzio/storage/write_source_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <iterator>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL, which is ignored
#endif

namespace hzio {

namespace {

// Below this a write's page cache comes in small folios anyway (the kernel sizes them to the
// write), and the two system calls would cost more than they save on the serial writer's queue,
// which writes a block at a time.
constexpr size_t kMinBytes = size_t{1} << 20;

uintptr_t PageSize() {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

uintptr_t PageDown(uintptr_t a) { return a / PageSize() * PageSize(); }
uintptr_t PageUp(uintptr_t a) { return (a + PageSize() - 1) / PageSize() * PageSize(); }

void Populate(uintptr_t lo, uintptr_t hi) {
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ);
}

bool Buffered(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_DIRECT) == 0;
}

}  // namespace

void WriteSourceMap::AddRegion(const void* data, size_t bytes) {
  if (bytes == 0) return;
  const std::lock_guard lock(mutex_);
  const auto begin = reinterpret_cast<uintptr_t>(data);
  regions_[begin] = begin + bytes;
}

size_t WriteSourceMap::mapped_bytes() const {
  const std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const auto& [lo, hi] : mapped_) total += hi - lo;
  return total;
}

void WriteSourceMap::Map(const iovec* iov, size_t n) {
  const std::lock_guard lock(mutex_);
  for (size_t k = 0; k < n; ++k) {
    if (iov[k].iov_len == 0) continue;
    const auto begin = reinterpret_cast<uintptr_t>(iov[k].iov_base), end = begin + iov[k].iov_len;
    // Every region the buffer overlaps (normally the one it lies in).
    auto r = regions_.upper_bound(begin);
    if (r != regions_.begin()) --r;
    for (; r != regions_.end() && r->first < end; ++r) {
      const uintptr_t lo = std::max(begin, r->first), hi = std::min(end, r->second);
      if (lo < hi) MapRange(PageDown(lo), PageUp(hi));
    }
  }
}

void WriteSourceMap::MapRange(uintptr_t lo, uintptr_t hi) {
  // The gaps of [lo, hi) between the ranges mapped before, mapped and merged into one range.
  auto at = mapped_.upper_bound(lo);
  if (at != mapped_.begin() && std::prev(at)->second >= lo) --at;
  uintptr_t from = lo, merged_lo = lo, merged_hi = hi;
  while (at != mapped_.end() && at->first <= hi) {
    Populate(from, std::min(at->first, hi));
    from = std::max(from, at->second);
    merged_lo = std::min(merged_lo, at->first);
    merged_hi = std::max(merged_hi, at->second);
    at = mapped_.erase(at);
  }
  Populate(from, hi);
  mapped_[merged_lo] = merged_hi;
}

void MapWriteSourcePages(int fd, const iovec* iov, size_t n, WriteSourceMap* known) {
  if (known) {
    if (Buffered(fd)) known->Map(iov, n);
    return;
  }
  size_t total = 0;
  for (size_t k = 0; k < n; ++k) total += iov[k].iov_len;
  if (total < kMinBytes || !Buffered(fd)) return;
  // Buffers that meet or touch on a page are asked about as one range: one call for a window's
  // consecutive pieces.
  uintptr_t lo = 0, hi = 0;
  for (size_t k = 0; k < n; ++k) {
    if (iov[k].iov_len == 0) continue;
    const uintptr_t a = PageDown(reinterpret_cast<uintptr_t>(iov[k].iov_base));
    const uintptr_t b = PageUp(reinterpret_cast<uintptr_t>(iov[k].iov_base) + iov[k].iov_len);
    if (hi > lo && a <= hi && b >= lo) {
      lo = std::min(a, lo);
      hi = std::max(b, hi);
      continue;
    }
    Populate(lo, hi);
    lo = a;
    hi = b;
  }
  Populate(lo, hi);
}

void MapWriteSourcePages(int fd, const void* data, size_t bytes, WriteSourceMap* known) {
  const iovec one{const_cast<void*>(data), bytes};
  MapWriteSourcePages(fd, &one, 1, known);
}

}  // namespace hzio
