#include "hzio/util/crash_point.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>

namespace hzio {

namespace {

struct CrashConfig {
  bool active = false;
  long long at = 0;     // 0: never crash
  std::string trace;    // "" : no trace
  std::string rank;     // this process's MPI rank as the launcher says, "-" outside MPI
};

bool ParsesAsRank(const char* text, long long rank) {
  if (text == nullptr) return false;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  return end != text && *end == '\0' && value == rank;
}

CrashConfig ReadConfig() {
  CrashConfig c;
  if (const char* at = std::getenv("HZIO_TEST_CRASH_AT")) {
    const std::string text = at;
    const size_t sep = text.find('@');
    c.at = std::atoll(text.substr(0, sep).c_str());
    if (sep != std::string::npos) {
      const long long rank = std::atoll(text.substr(sep + 1).c_str());
      if (!ParsesAsRank(std::getenv("OMPI_COMM_WORLD_RANK"), rank) && !ParsesAsRank(std::getenv("PMI_RANK"), rank))
        c.at = 0;
    }
  }
  if (const char* trace = std::getenv("HZIO_TEST_CRASH_TRACE")) c.trace = trace;
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank == nullptr) rank = std::getenv("PMI_RANK");
  c.rank = rank ? rank : "-";
  c.active = c.at > 0 || !c.trace.empty();
  return c;
}

const CrashConfig& Config() {
  static const CrashConfig config = ReadConfig();
  return config;
}

std::atomic<long long> g_count{0};

}  // namespace

void CrashPoint(std::string_view what) {
  const CrashConfig& c = Config();
  if (!c.active) return;
  const long long n = g_count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (!c.trace.empty()) {
    // One write per line with O_APPEND: lines of concurrent threads or ranks never interleave.
    const std::string line = c.rank + " " + std::to_string(n) + " " + std::string(what) + "\n";
    const int fd = ::open(c.trace.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      (void)!::write(fd, line.data(), line.size());
      ::close(fd);
    }
  }
  if (n == c.at) ::raise(SIGKILL);
}

}  // namespace hzio
