#include "hzio/storage/write_source_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL, which is ignored
#endif

namespace hzio {

namespace {

// Below this a write's page cache comes in small folios anyway (the kernel sizes them to the
// write), and the two system calls would cost more than they save on the serial writer's queue,
// which writes a block at a time.
constexpr size_t kMinBytes = size_t{1} << 20;

bool Buffered(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_DIRECT) == 0;
}

}  // namespace

void MapWriteSourcePages(int fd, const iovec* iov, size_t n) {
  size_t total = 0;
  for (size_t k = 0; k < n; ++k) total += iov[k].iov_len;
  if (total < kMinBytes || !Buffered(fd)) return;
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  // Buffers that meet or touch on a page are asked about as one range: one call for a window's
  // consecutive pieces.
  uintptr_t lo = 0, hi = 0;
  const auto flush = [&] {
    if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ);
  };
  for (size_t k = 0; k < n; ++k) {
    if (iov[k].iov_len == 0) continue;
    const uintptr_t a = reinterpret_cast<uintptr_t>(iov[k].iov_base) / page * page;
    const uintptr_t b = (reinterpret_cast<uintptr_t>(iov[k].iov_base) + iov[k].iov_len + page - 1) / page * page;
    if (hi > lo && a <= hi && b >= lo) {
      lo = a < lo ? a : lo;
      hi = b > hi ? b : hi;
      continue;
    }
    flush();
    lo = a;
    hi = b;
  }
  flush();
}

void MapWriteSourcePages(int fd, const void* data, size_t bytes) {
  const iovec one{const_cast<void*>(data), bytes};
  MapWriteSourcePages(fd, &one, 1);
}

}  // namespace hzio
