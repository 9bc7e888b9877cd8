// What this machine's disk does with a durable write (bench/mpi/RESULTS.md, "when the disk makes
// bytes durable"): the same bytes written and made durable several ways, each timed by phase. It
// answers whether the device makes written bytes durable on its own while the writer does other
// work (then an fsync after a pause is short, and a writer gains by handing bytes over early) or
// only when asked (then an fsync costs the same after any pause, and flushing in parts costs the
// sum of the parts). No MPI, no hzio: plain POSIX on one file.
//
// --data says what is written: random bytes (incompressible), or float64 samples of a smooth field
// (as a simulation writes, and as the benchmark's S3D case). --pages says what memory the bytes
// come from: huge pages (as hzio's staging buffers, util/large_allocation.h) or 4 KiB pages; a
// direct write from scattered pages takes more device requests.
//
// --chunk-mib and --lanes change how the direct writes are cut (default: as hzio's).
//
//   hzio_flush_probe --dir DIR [--mib 32] [--reps 7] [--pause-ms 50] [--data random|smooth]
//                    [--pages huge|small] [--chunk-mib 8] [--lanes 4]
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
// hzio's direct writes (storage/block_file_write.cpp): chunks of 8 MiB, four in flight.
int64_t g_chunk = int64_t{8} << 20;
int g_lanes = 4;

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what + ": " + std::strerror(errno));
}

// The phases of one way of writing, in milliseconds.
struct Phases {
  double write = 0, sync = 0;  // the pause between them is not counted
};

struct Probe {
  std::string path;
  int64_t bytes;
  int pause_ms;
  uint8_t* data;  // page-aligned, pre-touched

  int Open(bool direct) const {
    ::unlink(path.c_str());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (direct ? O_DIRECT : 0), 0644);
    Require(fd >= 0, "open " + path);
    if (direct) Require(::fallocate(fd, 0, 0, bytes) == 0, "fallocate " + path);
    return fd;
  }
  // Chunks of [from, to) written by g_lanes threads at once, as hzio keeps its direct writes in
  // flight (buffered writes land in the page cache either way).
  void WriteRange(int fd, int64_t from, int64_t to) const {
    std::atomic<int64_t> next{from};
    std::atomic<int> error{0};  // the first lane's errno (a short write: EIO)
    std::vector<std::thread> lanes;
    for (int l = 0; l < g_lanes; ++l)
      lanes.emplace_back([&] {
        for (int64_t at = next.fetch_add(g_chunk); at < to && error == 0; at = next.fetch_add(g_chunk)) {
          const int64_t n = std::min(g_chunk, to - at);
          if (::pwrite(fd, data + at, static_cast<size_t>(n), at) != n) error = errno != 0 ? errno : EIO;
        }
      });
    for (std::thread& t : lanes) t.join();
    errno = error;
    Require(error == 0, "pwrite " + path);
  }
  void Pause() const { std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms)); }

  // Writes everything, optionally pauses, then one fsync.
  Phases WholeThenSync(bool direct, bool pause) const {
    const int fd = Open(direct);
    Phases p;
    auto t0 = Clock::now();
    WriteRange(fd, 0, bytes);
    p.write = Ms(t0, Clock::now());
    if (pause) Pause();
    t0 = Clock::now();
    Require(::fsync(fd) == 0, "fsync " + path);
    p.sync = Ms(t0, Clock::now());
    ::close(fd);
    return p;
  }
  // Direct writes of quarters, each made durable (fdatasync) before the next is written.
  Phases QuartersEachSynced() const {
    const int fd = Open(true);
    Phases p;
    for (int q = 0; q < 4; ++q) {
      auto t0 = Clock::now();
      WriteRange(fd, bytes * q / 4, bytes * (q + 1) / 4);
      auto t1 = Clock::now();
      Require(::fdatasync(fd) == 0, "fdatasync " + path);
      p.write += Ms(t0, t1);
      p.sync += Ms(t1, Clock::now());
    }
    Require(::fsync(fd) == 0, "fsync " + path);
    ::close(fd);
    return p;
  }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int64_t mib = 32;
  int reps = 7, pause_ms = 50;
  int64_t chunk_mib = g_chunk >> 20;
  std::string kind = "random", pages = "huge";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--mib" && i + 1 < argc) mib = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--pause-ms" && i + 1 < argc) pause_ms = std::atoi(argv[++i]);
    else if (a == "--data" && i + 1 < argc) kind = argv[++i];
    else if (a == "--pages" && i + 1 < argc) pages = argv[++i];
    else if (a == "--chunk-mib" && i + 1 < argc) chunk_mib = std::atoll(argv[++i]);
    else if (a == "--lanes" && i + 1 < argc) g_lanes = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: hzio_flush_probe --dir DIR [--mib 32] [--reps 7] [--pause-ms 50] [--data random|smooth]"
                   " [--pages huge|small] [--chunk-mib 8] [--lanes 4]\n");
      return 2;
    }
  }
  // Bounds before any shift: an absurd size is refused, not wrapped around.
  constexpr int64_t kMaxMib = int64_t{1} << 20;  // 1 TiB
  if (dir.empty() || mib < 4 || mib > kMaxMib || mib % 4 != 0 || reps < 1 || pause_ms < 0 ||
      (kind != "random" && kind != "smooth") || (pages != "huge" && pages != "small") || chunk_mib < 1 ||
      chunk_mib > 1024 || g_lanes < 1 || g_lanes > 64) {
    std::fprintf(stderr, "hzio_flush_probe: --dir is required, --mib a multiple of 4 in [4, %lld], --reps >= 1, "
                         "--data random or smooth, --pages huge or small, --chunk-mib in [1, 1024], --lanes in "
                         "[1, 64]\n", static_cast<long long>(kMaxMib));
    return 2;
  }
  g_chunk = chunk_mib << 20;
  try {
    const int64_t bytes = mib << 20;
    constexpr size_t kHuge = size_t{2} << 20;
    uint8_t* data = static_cast<uint8_t*>(std::aligned_alloc(kHuge, static_cast<size_t>(bytes)));
    Require(data != nullptr, "allocate");
    Require(::madvise(data, static_cast<size_t>(bytes), pages == "huge" ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0,
            "madvise");
    uint64_t x = 0x9E3779B97F4A7C15ull;  // deterministic bytes, every page touched
    for (int64_t i = 0; i < bytes; i += 8) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const double smooth = 300.0 + 20.0 * std::sin(static_cast<double>(i / 8) * 1e-3);
      std::memcpy(data + i, kind == "random" ? static_cast<const void*>(&x) : static_cast<const void*>(&smooth), 8);
    }
    const Probe probe{dir + "/flush_probe.bin", bytes, pause_ms, data};
    const std::string pause = "pause " + std::to_string(pause_ms) + " ms, ";
    const std::vector<std::pair<std::string, std::function<Phases()>>> ways = {
        {"direct writes, fsync", [&] { return probe.WholeThenSync(true, false); }},
        {"direct writes, " + pause + "fsync", [&] { return probe.WholeThenSync(true, true); }},
        {"direct writes by quarters, fdatasync after each", [&] { return probe.QuartersEachSynced(); }},
        {"buffered write, fsync", [&] { return probe.WholeThenSync(false, false); }},
        {"buffered write, " + pause + "fsync", [&] { return probe.WholeThenSync(false, true); }},
    };
    std::map<std::string, std::vector<Phases>> runs;
    for (int r = 0; r < reps; ++r)  // the ways interleaved, so a slow spell of the disk hits them all
      for (const auto& [name, run] : ways) runs[name].push_back(run());
    ::unlink(probe.path.c_str());
    std::printf("%lld MiB of %s data from %s pages, %d repetitions, medians in ms (the pause is not counted)\n\n",
                static_cast<long long>(mib), kind.c_str(), pages.c_str(), reps);
    std::printf("| way | write | sync | write + sync |\n|---|---|---|---|\n");
    for (const auto& [name, run] : ways) {
      std::vector<double> w, s, t;
      for (const Phases& p : runs[name]) {
        w.push_back(p.write);
        s.push_back(p.sync);
        t.push_back(p.write + p.sync);
      }
      std::printf("| %s | %.1f | %.1f | %.1f |\n", name.c_str(), Median(w), Median(s), Median(t));
    }
    std::free(data);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hzio_flush_probe: %s\n", e.what());
    return 1;
  }
  return 0;
}
