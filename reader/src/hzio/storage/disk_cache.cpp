#include "hzio/storage/disk_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <vector>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

constexpr char kMagic[8] = {'H', 'Z', 'I', 'O', 'C', 'A', '1', '\n'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;  // magic, key length, CRC-32 of key + value, value length
constexpr int64_t kStampEverySeconds = 60;
constexpr int64_t kStaleTempSeconds = 3600;

uint64_t Fnv1a(std::string_view s, uint64_t h) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

void Store32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void Store64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t Load32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}
uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

uint32_t Crc(std::string_view key, std::string_view value) {
  uint32_t crc = libdeflate_crc32(0, key.data(), key.size());
  return libdeflate_crc32(crc, value.data(), value.size());
}

bool IsHex2(const char* name) {
  return std::strlen(name) == 2 && std::isxdigit(static_cast<unsigned char>(name[0])) &&
         std::isxdigit(static_cast<unsigned char>(name[1]));
}

int64_t Seconds(const struct timespec& t) { return static_cast<int64_t>(t.tv_sec); }

// write(2) until all of `bytes` is written; false (errno set) on failure.
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Closes a descriptor on every path.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

DiskCache::DiskCache(std::string dir, int64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  Check(!ec || std::filesystem::is_directory(dir_), ErrorCode::kIo,
        dir_ + ": cannot create the cache directory: " + ec.message());
  Check(std::filesystem::is_directory(dir_), ErrorCode::kIo, dir_ + ": the cache directory is not a directory");
}

std::shared_ptr<DiskCache> DiskCache::ForDirectory(const std::string& dir, int64_t max_bytes) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<DiskCache>> caches;
  std::error_code ec;
  const std::string key = std::filesystem::weakly_canonical(std::filesystem::absolute(dir), ec).string();
  const std::string name = ec ? dir : key;
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<DiskCache>& cache = caches[name];
  if (!cache) cache = std::make_shared<DiskCache>(name, max_bytes);
  cache->max_bytes_ = max_bytes;
  return cache;
}

std::string DiskCache::DefaultDirectory() {
  if (const char* v = std::getenv("HZIO_CACHE_DIR"); v && *v) {
    const std::string s = v;
    return ToLower(s) == "off" ? std::string() : s;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/hzio";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/hzio";
  return "";
}

int64_t DiskCache::DefaultMaxBytes() {
  const char* v = std::getenv("HZIO_CACHE_SIZE");
  return v && *v ? ParseByteSize(v, "HZIO_CACHE_SIZE") : int64_t{10} << 30;
}

std::string DiskCache::EntryPath(const std::string& key) const {
  char name[40];
  std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(Fnv1a(key, 1469598103934665603ull)),
                static_cast<unsigned long long>(Fnv1a(key, 0x9e3779b97f4a7c15ull)));
  return dir_ + "/" + std::string(name, 2) + "/" + std::string(name + 2, 30);
}

std::optional<std::string> DiskCache::Get(const std::string& key) {
  const std::string path = EntryPath(key);
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)};
  if (f.fd < 0) {
    ++misses_;
    return std::nullopt;
  }
  struct stat st {};
  auto damaged = [&]() -> std::optional<std::string> {
    ::unlink(path.c_str());  // re-fetched and stored anew by the caller
    ++damaged_;
    ++misses_;
    return std::nullopt;
  };
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < kHeaderBytes)
    return damaged();
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::pread(f.fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return damaged();
    done += static_cast<size_t>(n);
  }
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint64_t key_length = Load32(p + 8), value_length = Load64(p + 16);
  const uint32_t crc = Load32(p + 12);
  if (std::memcmp(p, kMagic, 8) != 0 || key_length != key.size() ||
      value_length != bytes.size() - kHeaderBytes - std::min<uint64_t>(key_length, bytes.size() - kHeaderBytes) ||
      bytes.compare(kHeaderBytes, key.size(), key) != 0)
    return damaged();
  const std::string_view value(bytes.data() + kHeaderBytes + key.size(), static_cast<size_t>(value_length));
  if (Crc(key, value) != crc) return damaged();
  // Recency for eviction: stamped at most once a minute, so hits rarely write metadata. Failing
  // to stamp (someone else's file) only makes the entry look older.
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  if (Seconds(now) - Seconds(st.st_mtim) > kStampEverySeconds) (void)::futimens(f.fd, nullptr);
  ++hits_;
  return std::string(value);
}

void DiskCache::NoteStoreFailure(const std::string& what) {
  ++store_failures_;
  if (!warned_.exchange(true))
    std::fprintf(stderr, "hzio: warning: cannot write to the disk cache %s (%s); reads go on without caching\n",
                 dir_.c_str(), what.c_str());
}

void DiskCache::Put(const std::string& key, std::string_view value) {
  const int64_t total = static_cast<int64_t>(kHeaderBytes + key.size() + value.size());
  if (total > max_bytes_ / 2) return;
  std::call_once(scanned_, [this] { approx_bytes_ = ScanBytes(); });
  const std::string path = EntryPath(key);
  const std::string folder = path.substr(0, path.rfind('/'));
  if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) return NoteStoreFailure(folder + ": " + std::strerror(errno));
  static std::atomic<uint64_t> counter{0};
  const std::string temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  Fd f{::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)};
  if (f.fd < 0) return NoteStoreFailure(temp + ": " + std::strerror(errno));
  uint8_t header[kHeaderBytes];
  std::memcpy(header, kMagic, 8);
  Store32(header + 8, static_cast<uint32_t>(key.size()));
  Store32(header + 12, Crc(key, value));
  Store64(header + 16, value.size());
  for (const std::string_view piece : {std::string_view(reinterpret_cast<const char*>(header), kHeaderBytes),
                                       std::string_view(key), value}) {
    if (!WriteAll(f.fd, piece)) {
      const std::string why = std::strerror(errno);
      ::unlink(temp.c_str());
      return NoteStoreFailure(temp + ": " + why);
    }
  }
  ::close(f.fd);
  f.fd = -1;
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    return NoteStoreFailure(path + ": " + why);
  }
  ++stores_;
  if ((approx_bytes_ += total) > max_bytes_) Evict(max_bytes_ / 10 * 9);
}

void DiskCache::Remove(const std::string& key) { ::unlink(EntryPath(key).c_str()); }

namespace {

struct EntryFile {
  int64_t mtime_ns;
  int64_t bytes;
  std::string path;
};

// Every entry file of the cache; stale temporary files are removed on the way when `clean`.
std::vector<EntryFile> ListEntries(const std::string& dir, bool clean) {
  std::vector<EntryFile> out;
  DIR* top = ::opendir(dir.c_str());
  if (!top) return out;
  struct timespec now {};
  clock_gettime(CLOCK_REALTIME, &now);
  while (dirent* d = ::readdir(top)) {
    if (!IsHex2(d->d_name)) continue;
    const std::string sub = dir + "/" + d->d_name;
    DIR* inner = ::opendir(sub.c_str());
    if (!inner) continue;
    while (dirent* e = ::readdir(inner)) {
      if (e->d_name[0] == '.') continue;
      const std::string path = sub + "/" + e->d_name;
      struct stat st {};
      if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (std::strstr(e->d_name, ".tmp.")) {
        if (clean && Seconds(now) - Seconds(st.st_mtim) > kStaleTempSeconds) ::unlink(path.c_str());
        continue;
      }
      out.push_back(EntryFile{static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                              static_cast<int64_t>(st.st_size), path});
    }
    ::closedir(inner);
  }
  ::closedir(top);
  return out;
}

}  // namespace

int64_t DiskCache::ScanBytes() {
  int64_t total = 0;
  for (const EntryFile& e : ListEntries(dir_, false)) total += e.bytes;
  return total;
}

int64_t DiskCache::Evict(int64_t target_bytes) {
  const std::string lock_path = dir_ + "/.evict.lock";
  Fd lock{::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)};
  if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) return approx_bytes_;  // another process evicts
  std::vector<EntryFile> entries = ListEntries(dir_, true);
  int64_t total = 0;
  for (const EntryFile& e : entries) total += e.bytes;
  std::sort(entries.begin(), entries.end(), [](const EntryFile& a, const EntryFile& b) { return a.mtime_ns < b.mtime_ns; });
  for (const EntryFile& e : entries) {
    if (total <= target_bytes) break;
    if (::unlink(e.path.c_str()) == 0) {
      total -= e.bytes;
      ++evicted_;
    }
  }
  approx_bytes_ = total;
  return total;
}

DiskCache::Stats DiskCache::stats() const {
  return Stats{hits_, misses_, damaged_, stores_, store_failures_, evicted_};
}

}  // namespace hzio
