// Serial read/write benchmark driver for hzio::core (issues 2 and 18, design.md §7). Every buffer
// is allocated and touched before timing (page faults are slow on the benchmark VM: ~1.4 GB/s),
// so the timed region is the library's own work. Result buffers are advised as huge pages, as
// numpy does for large arrays. Prints one JSON object per command; "cpu_s" is the process's CPU
// time per run (user + system), a steadier figure than wall time on a shared machine.
//
//   hzio-bench-core read IDX [--level H] [--box BOX] [--repeat N] [--cold]
//       a box query (default: the whole dataset at full resolution). --cold drops the page cache
//       before every run (root: sync; echo 3 > /proc/sys/vm/drop_caches) and skips the warm-up.
//   hzio-bench-core seqread FILE... [--repeat N] [--cold]
//       the disk's sequential buffered read: the files one after the other, 1 MiB reads (as cat).
//   hzio-bench-core write RAW OUT.idx --dims X,Y,Z --dtype T [--compression C] [--layout L]
//                   [--bitsperblock N] [--blocksperfile N] [--repeat N]
//   hzio-bench-core memcpy BYTES [--repeat N]
//   hzio-bench-core generate X,Y,Z          float32 samples of a known formula to stdout (x fastest)
//   hzio-bench-core check X,Y,Z [--strides SX,SY,SZ] [--npy]
//       stdin (raw, x fastest) equals `generate`'s samples (every S-th along each axis, as a coarser
//       level of a dataset holds; --npy: after a .npy header of that shape): exit 1 naming the
//       first difference
// generate | hzio convert - and hzio read -o - | check write and verify an array larger than
// memory or disk space allows to keep twice (issue 18).
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/util/large_allocation.h"
#include "hzio/util/strings.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string Option(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 0; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

bool Flag(int argc, char** argv, const std::string& name) {
  for (int i = 0; i < argc; ++i)
    if (argv[i] == name) return true;
  return false;
}

// Memory as a large result gets it: huge-page advised, every page touched before timing.
hzio::LargeAllocation Touched(size_t bytes) {
  hzio::LargeAllocation a(std::max<size_t>(bytes, 1));
  for (size_t i = 0; i < a.size(); i += 4096) a.data()[i] = 1;
  return a;
}

// The kernel drops clean cached pages of every file; needs root.
void DropCaches() {
  ::sync();
  std::ofstream f("/proc/sys/vm/drop_caches");
  f << "3\n";
  f.flush();
  if (!f) throw std::runtime_error("--cold: cannot write /proc/sys/vm/drop_caches (run as root)");
}

// Runs fn `repeat` times (before() and, when cold, dropping caches untimed before each); prints
// the JSON line.
template <typename Fn, typename Before>
void Time(int repeat, bool cold, int64_t bytes, const std::string& extra, Fn&& fn, Before&& before) {
  std::vector<double> times;
  double cpu = 0;
  for (int i = 0; i < repeat; ++i) {
    before();
    if (cold) DropCaches();
    const double c0 = CpuSeconds();
    const auto t0 = Clock::now();
    fn();
    times.push_back(Seconds(t0, Clock::now()));
    cpu += CpuSeconds() - c0;
  }
  std::string s = "{\"median_s\":" + std::to_string(Median(times)) + ",\"bytes\":" + std::to_string(bytes) +
                  ",\"gb_per_s\":" + std::to_string(static_cast<double>(bytes) / Median(times) / 1e9) +
                  ",\"cpu_s\":" + std::to_string(cpu / repeat) + ",\"cold\":" + (cold ? "true" : "false") + ",\"runs\":[";
  for (size_t i = 0; i < times.size(); ++i) s += (i ? "," : "") + std::to_string(times[i]);
  std::cout << s << "]" << extra << "}\n";
}

template <typename Fn>
void Time(int repeat, bool cold, int64_t bytes, const std::string& extra, Fn&& fn) {
  Time(repeat, cold, bytes, extra, fn, [] {});
}

int Read(int argc, char** argv) {
  auto ds = hzio::OpenDataset(argv[2]);
  hzio::BoxQuery q;
  q.level = std::stoi(Option(argc, argv, "--level", std::to_string(ds->header().maxh())));
  if (const std::string box = Option(argc, argv, "--box", ""); !box.empty()) q.box = hzio::Box::ParseRanges(box);
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "5"));
  const bool cold = Flag(argc, argv, "--cold");
  const hzio::Dataset::Resolved r = ds->Resolve(q);
  const int64_t bytes = ds->header().fields[static_cast<size_t>(r.field)].dtype.BytesFor(r.grid.NumSamples());
  hzio::LargeAllocation out = Touched(static_cast<size_t>(bytes));
  if (!cold) ds->ReadInto(r, out.data());  // warm the page cache and the block tables
  Time(repeat, cold, bytes,
       ",\"level\":" + std::to_string(*q.level) + ",\"samples\":" + std::to_string(r.grid.NumSamples()),
       [&] { ds->ReadInto(r, out.data()); });
  return 0;
}

int SeqRead(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 2; i < argc && std::string(argv[i]).rfind("--", 0) != 0; ++i) files.push_back(argv[i]);
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "3"));
  const bool cold = Flag(argc, argv, "--cold");
  int64_t bytes = 0;
  for (const std::string& f : files) bytes += static_cast<int64_t>(std::filesystem::file_size(f));
  hzio::LargeAllocation buffer = Touched(size_t{1} << 20);
  Time(repeat, cold, bytes, ",\"files\":" + std::to_string(files.size()), [&] {
    for (const std::string& f : files) {
      const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw std::runtime_error("cannot open " + f);
      while (::read(fd, buffer.data(), buffer.size()) > 0) {
      }
      ::close(fd);
    }
  });
  return 0;
}

int Write(int argc, char** argv) {
  const std::string raw = argv[2], out = argv[3];
  const hzio::Box box = hzio::Box::ParseRanges([&] {
    std::string dims = Option(argc, argv, "--dims", "");
    std::string ranges;
    for (const std::string& d : hzio::Split(dims, ',')) ranges += (ranges.empty() ? "0:" : ",0:") + d;
    return ranges;
  }());
  hzio::IdxHeader h;
  h.box = box;
  hzio::Field f = hzio::Field::Parse("data " + Option(argc, argv, "--dtype", "float32"), 6);
  const std::string compression = Option(argc, argv, "--compression", "raw");
  f.compression = compression == "raw" ? "" : compression;
  f.hz_layout = Option(argc, argv, "--layout", "rowmajor") == "hzorder";
  h.fields.push_back(f);
  h.bits_per_block = std::stoi(Option(argc, argv, "--bitsperblock", "0"));
  h.blocks_per_file = std::stoll(Option(argc, argv, "--blocksperfile", "0"));
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "3"));
  const int64_t bytes = f.dtype.BytesFor(box.Size().Product());
  hzio::LargeAllocation data = Touched(static_cast<size_t>(bytes));
  std::ifstream(raw, std::ios::binary).read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
  auto clear = [&] {
    std::filesystem::remove_all(std::filesystem::path(out).replace_extension(""));
    std::filesystem::remove(out);
  };
  Time(
      repeat, false, bytes, ",\"compression\":\"" + compression + "\"",
      [&] {
        hzio::DatasetWriter w(out, h);
        w.Write(0, 0, box, data.data());
        w.Finish();
      },
      clear);
  return 0;
}

int Memcpy(int argc, char** argv) {
  const int64_t bytes = std::stoll(argv[2]);
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "5"));
  hzio::LargeAllocation a = Touched(static_cast<size_t>(bytes)), b = Touched(static_cast<size_t>(bytes));
  int i = 0;
  Time(repeat, false, bytes, "", [&] {
    std::memcpy(b.data(), a.data(), static_cast<size_t>(bytes));
    a.data()[i] = b.data()[bytes - 1 - i];  // keep the copy observable
    ++i;
  });
  return 0;
}

}  // namespace

// The sample at (x, y, z): integers below 2^24 are exact in float32, and the mix makes a sample
// placed at a wrong position differ from the expected one.
inline float Sample(uint64_t x, uint64_t y, uint64_t z) {
  uint64_t h = (x * 0x9E3779B97F4A7C15ull) ^ (y * 0xC2B2AE3D27D4EB4Full) ^ (z * 0x165667B19E3779F9ull);
  h ^= h >> 29;
  return static_cast<float>(h & 0xFFFFFF);
}

hzio::Point ParseXyz(const std::string& text) {
  const hzio::Box b = hzio::Box::ParseRanges([&] {
    std::string r;
    for (const std::string& part : hzio::Split(text, ',')) r += (r.empty() ? "0:" : ",0:") + part;
    return r;
  }());
  return b.Size();
}

constexpr size_t kRowsPerWrite = 256;

int Generate(int argc, char** argv) {
  const hzio::Point dims = ParseXyz(argv[2]);
  (void)argc;
  const int64_t nx = dims[0], ny = dims[1], nz = dims.dims > 2 ? dims[2] : 1;
  std::vector<float> rows(static_cast<size_t>(nx) * kRowsPerWrite);
  for (int64_t z = 0; z < nz; ++z)
    for (int64_t y0 = 0; y0 < ny; y0 += static_cast<int64_t>(kRowsPerWrite)) {
      const int64_t count = std::min<int64_t>(static_cast<int64_t>(kRowsPerWrite), ny - y0);
      for (int64_t r = 0; r < count; ++r)
        for (int64_t x = 0; x < nx; ++x)
          rows[static_cast<size_t>(r * nx + x)] = Sample(static_cast<uint64_t>(x), static_cast<uint64_t>(y0 + r),
                                                         static_cast<uint64_t>(z));
      const auto* p = reinterpret_cast<const char*>(rows.data());
      size_t left = static_cast<size_t>(count * nx) * sizeof(float);
      while (left > 0) {
        const ssize_t n = ::write(STDOUT_FILENO, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error(std::string("generate: cannot write to stdout: ") + std::strerror(errno));
        p += n;
        left -= static_cast<size_t>(n);
      }
    }
  return 0;
}

// Reads exactly `bytes` from stdin (false at a clean end of input before any byte).
bool ReadFully(uint8_t* out, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::read(STDIN_FILENO, out + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("check: cannot read stdin: ") + std::strerror(errno));
    if (n == 0) {
      if (done == 0) return false;
      throw std::runtime_error("check: input ends inside a row");
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A .npy stream's header (format 1 or 2) must describe (nz, ny, nx) little-endian float32.
void SkipNpyHeader(int64_t nx, int64_t ny, int64_t nz) {
  uint8_t prefix[12];
  if (!ReadFully(prefix, 10) || std::memcmp(prefix, "\x93NUMPY", 6) != 0)
    throw std::runtime_error("check: --npy input does not start with a .npy magic");
  size_t length = prefix[8] | (size_t{prefix[9]} << 8);
  if (prefix[6] >= 2) {
    ReadFully(prefix + 10, 2);
    length |= (size_t{prefix[10]} << 16) | (size_t{prefix[11]} << 24);
  }
  std::string header(length, '\0');
  ReadFully(reinterpret_cast<uint8_t*>(header.data()), length);
  const std::string shape = "(" + std::to_string(nz) + ", " + std::to_string(ny) + ", " + std::to_string(nx) + ")";
  if (header.find("'<f4'") == std::string::npos || header.find(shape) == std::string::npos)
    throw std::runtime_error("check: .npy header is not <f4 of shape " + shape + ": " + header);
}

int CheckStream(int argc, char** argv) {
  const hzio::Point dims = ParseXyz(argv[2]);
  const int64_t fx = dims[0], fy = dims[1], fz = dims.dims > 2 ? dims[2] : 1;
  // A level's samples are those whose coordinates are multiples of its strides (idx-format.md
  // §4.1): read them off a full-resolution dataset with `--level H`, strides from `hzio info`.
  int64_t sx = 1, sy = 1, sz = 1;
  if (const std::string st = Option(argc, argv, "--strides", ""); !st.empty()) {
    const hzio::Point s = ParseXyz(st);
    sx = s[0];
    sy = s[1];
    sz = s.dims > 2 ? s[2] : 1;
  }
  const int64_t nx = (fx + sx - 1) / sx, ny = (fy + sy - 1) / sy, nz = (fz + sz - 1) / sz;
  if (Flag(argc, argv, "--npy")) SkipNpyHeader(nx, ny, nz);
  std::vector<float> row(static_cast<size_t>(nx));
  for (int64_t z = 0; z < nz; ++z)
    for (int64_t y = 0; y < ny; ++y) {
      if (!ReadFully(reinterpret_cast<uint8_t*>(row.data()), row.size() * sizeof(float)))
        throw std::runtime_error("check: input ends at row y=" + std::to_string(y) + " z=" + std::to_string(z));
      for (int64_t x = 0; x < nx; ++x) {
        const float want = Sample(static_cast<uint64_t>(x * sx), static_cast<uint64_t>(y * sy),
                                  static_cast<uint64_t>(z * sz));
        if (std::memcmp(&row[static_cast<size_t>(x)], &want, sizeof want) != 0) {
          std::cerr << "check: sample (" << x << "," << y << "," << z << ") is " << row[static_cast<size_t>(x)]
                    << ", expected " << want << "\n";
          return 1;
        }
      }
    }
  uint8_t extra;
  if (ReadFully(&extra, 1)) throw std::runtime_error("check: input has more samples than " + std::string(argv[2]));
  std::cout << "{\"checked_samples\":" << nx * ny * nz << "}\n";
  return 0;
}

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 2 ? argv[1] : "";
    if (cmd == "read") return Read(argc, argv);
    if (cmd == "seqread") return SeqRead(argc, argv);
    if (cmd == "write" && argc > 3) return Write(argc, argv);
    if (cmd == "memcpy") return Memcpy(argc, argv);
    if (cmd == "generate") return Generate(argc, argv);
    if (cmd == "check") return CheckStream(argc, argv);
    std::cerr << "usage: hzio-bench-core read IDX [--level H] [--box BOX] [--repeat N] [--cold] | seqread FILE... "
                 "[--repeat N] [--cold] | write RAW OUT.idx --dims X,Y,Z --dtype T [--compression C] [--layout L] "
                 "[--repeat N] | memcpy BYTES [--repeat N] | generate X,Y,Z | check X,Y,Z [--strides SX,SY,SZ] [--npy]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hzio-bench-core: " << e.what() << "\n";
    return 1;
  }
}
