// A library preloaded (LD_PRELOAD) into the ranks of a test to make their file writes late: with
// HZIO_TEST_SLOW_WRITES_MS=N, every pwrite and pwritev of the ranks listed in
// HZIO_TEST_SLOW_WRITES_RANKS (comma-separated OMPI_COMM_WORLD_RANK values; every rank when unset)
// first sleeps N ms, then writes. The bytes are read from the caller's buffer only after the sleep,
// so a write that another thread or rank overwrites the buffer of while it is in flight writes the
// overwritten bytes every time, where on a fast disk it would only now and then. A test asks
// hzio_test_slowed_writes() (dlsym) whether the library is loaded and how many writes it slowed.
// (On 64-bit Linux pwrite64 and pwritev64 are the same functions as these, which hzio calls.)
#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <string>

namespace {

std::atomic<long> g_slowed{0};

long DelayMs() {
  const char* ms = std::getenv("HZIO_TEST_SLOW_WRITES_MS");
  if (ms == nullptr) return 0;
  const char* ranks = std::getenv("HZIO_TEST_SLOW_WRITES_RANKS");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (ranks != nullptr) {
    if (rank == nullptr) return 0;
    const std::string list = std::string(",") + ranks + ",";
    if (list.find(std::string(",") + rank + ",") == std::string::npos) return 0;
  }
  return std::atol(ms);
}

void MaybeSleep() {
  static const long ms = DelayMs();
  if (ms <= 0) return;
  const timespec pause{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&pause, nullptr);
  g_slowed.fetch_add(1);
}

template <class Fn>
Fn Next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

long hzio_test_slowed_writes() { return g_slowed.load(); }

ssize_t pwrite(int fd, const void* data, size_t n, off_t offset) {
  static const auto next = Next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  MaybeSleep();
  return next(fd, data, n, offset);
}

ssize_t pwritev(int fd, const iovec* iov, int count, off_t offset) {
  static const auto next = Next<ssize_t (*)(int, const iovec*, int, off_t)>("pwritev");
  MaybeSleep();
  return next(fd, iov, count, offset);
}

}  // extern "C"
