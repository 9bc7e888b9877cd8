#include "hzio/storage/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "hzio/storage/durable_file.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

FileIdentity IdentityOf(const struct stat& st) {
  return FileIdentity{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
                      static_cast<uint64_t>(st.st_size),
                      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

}  // namespace

std::string FileIdentity::ToString() const {
  return std::to_string(device) + ":" + std::to_string(inode) + ":" + std::to_string(size) + ":" +
         std::to_string(mtime_ns);
}

std::optional<FileIdentity> StatIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::nullopt;
    throw OsError(path, "cannot stat");
  }
  return IdentityOf(st);
}

std::shared_ptr<ReadFile> ReadFile::OpenIfExists(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever; for regular files
  // it changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return nullptr;
    throw OsError(path, "cannot open");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw OsError(path, "cannot stat");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::kIo, path + ": not a regular file (" +
                                    (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
                                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a special file") +
                                    ")");
  }
  return std::shared_ptr<ReadFile>(new ReadFile(path, fd, IdentityOf(st)));
}

ReadFile::~ReadFile() {
  ::close(fd_);
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

uint64_t ReadFile::ReadUpTo(uint64_t offset, uint64_t n, uint8_t* out) const {
  uint64_t done = 0;
  while (done < n) {
    // At most 1 GiB per call: Linux caps one read at just under 2 GiB anyway.
    const ssize_t r = ::pread(fd_, out + done, std::min<uint64_t>(n - done, uint64_t{1} << 30),
                              static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw OsError(path_, "read failed");
    if (r == 0) break;
    done += static_cast<uint64_t>(r);
  }
  return done;
}

void ReadFile::Prefetch(uint64_t offset, uint64_t n) const {
  if (n > 0) (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(n), POSIX_FADV_WILLNEED);
}

uint64_t ReadFile::CachedBytes(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) const {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [offset, n] : ranges) {
    if (offset >= size() || n == 0) continue;
    lo = std::min(lo, offset);
    hi = std::max(hi, offset + std::min(n, size() - offset));
  }
  if (lo >= hi) return 0;
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t first = lo / page * page;
  const size_t length = static_cast<size_t>(hi - first);
  auto* map = static_cast<uint8_t*>(::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_, static_cast<off_t>(first)));
  if (map == MAP_FAILED) return 0;
  // Each range asked about on its own: the cost follows the ranges, not their hull.
  uint64_t cached = 0;
  std::vector<unsigned char> resident;
  for (const auto& [offset, n] : ranges) {
    if (offset >= size() || n == 0) continue;
    const uint64_t end = offset + std::min(n, size() - offset);
    const uint64_t from = offset / page * page, to = (end + page - 1) / page * page;
    resident.resize(static_cast<size_t>((to - from) / page));
    if (::mincore(map + (from - first), static_cast<size_t>(to - from), resident.data()) != 0) continue;
    for (size_t p = 0; p < resident.size(); ++p)
      if (resident[p] & 1)
        cached += std::min(end, from + (p + 1) * page) - std::max(offset, from + p * page);
  }
  ::munmap(map, length);
  return cached;
}

namespace {

constexpr uint64_t kDirectAlign = kDirectIoAlignment;

}  // namespace

int ReadFile::DirectFd() const {
  std::call_once(direct_once_, [this] {
    // The inode this descriptor holds, not whatever the path names now (a writer may have renamed
    // a new generation over it). Refused (EINVAL on tmpfs; no /proc): buffered reads, same bytes.
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    const int fd = ::open(self.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECT);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || IdentityOf(st).inode != identity_.inode || IdentityOf(st).device != identity_.device) {
      ::close(fd);
      return;
    }
    direct_fd_ = fd;
  });
  return direct_fd_;
}

const uint8_t* ReadFile::ReadUncached(uint64_t offset, uint64_t n, LargeAllocation& staging, uint64_t& got,
                                      bool* direct) const {
  const uint64_t first = offset / kDirectAlign * kDirectAlign;
  const uint64_t span = (offset + n - first + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  if (staging.size() < span + kDirectAlign) staging = LargeAllocation(static_cast<size_t>(span + kDirectAlign));
  const uintptr_t base = reinterpret_cast<uintptr_t>(staging.data());
  uint8_t* const buf = staging.data() + ((kDirectAlign - base % kDirectAlign) % kDirectAlign);
  if (direct) *direct = false;
  const int fd = DirectFd();
  uint64_t done = 0;
  while (fd >= 0 && done < span) {
    // Whole blocks at aligned offsets; at the end of the file the read is short (and stops).
    const ssize_t r = ::pread(fd, buf + done, std::min<uint64_t>(span - done, uint64_t{1} << 30),
                              static_cast<off_t>(first + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EINVAL && done == 0) break;  // this file system refuses the alignment: buffered
    if (r < 0) throw OsError(path_, "read failed");
    if (r == 0 || static_cast<uint64_t>(r) % kDirectAlign != 0) {
      done += static_cast<uint64_t>(r);
      break;  // the end of the file
    }
    done += static_cast<uint64_t>(r);
  }
  if (fd >= 0 && (done > 0 || span == 0 || first >= identity_.size)) {
    if (direct) *direct = true;
    got = done > offset - first ? std::min(n, done - (offset - first)) : 0;
    return buf + (offset - first);
  }
  got = ReadUpTo(offset, n, buf + (offset - first));
  return buf + (offset - first);
}

void ReadFile::ReadAt(uint64_t offset, uint64_t n, uint8_t* out) const {
  if (ReadUpTo(offset, n, out) != n)
    throw Error(ErrorCode::kCorrupt, path_ + ": truncated: wanted " + std::to_string(n) + " bytes at offset " +
                                         std::to_string(offset) + ", the file had " + std::to_string(size()) +
                                         " bytes when opened");
}

WriteFile::WriteFile(const std::string& path, bool create) : path_(path) {
  if (create) MakeParentDirectories(path);
  fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  if (fd_ < 0) throw OsError(path, "cannot open for writing");
}

WriteFile::~WriteFile() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t WriteFile::size() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw OsError(path_, "cannot stat");
  return static_cast<uint64_t>(st.st_size);
}

void WriteFile::WriteAt(uint64_t offset, const uint8_t* data, uint64_t n) {
  WriteExactlyAt(fd_, data, n, offset, path_);
}

void WriteFile::ReadAt(uint64_t offset, uint64_t n, uint8_t* out) const {
  ReadExactlyAt(fd_, out, n, offset, path_);
}

void WriteFile::Sync() {
  if (::fsync(fd_) != 0) throw OsError(path_, "fsync failed");
}

void MakeParentDirectories(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(ErrorCode::kIo, parent.string() + ": cannot create directory: " + ec.message());
}

bool FileExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string ReadWholeFile(const std::string& path) {
  auto f = ReadFile::OpenIfExists(path);
  Check(f != nullptr, ErrorCode::kNotFound, path + ": no such file");
  Check(f->size() < (uint64_t{1} << 30), ErrorCode::kTooLarge, path + ": file too large to read whole");
  std::string s(f->size(), '\0');
  f->ReadAt(0, f->size(), reinterpret_cast<uint8_t*>(s.data()));
  return s;
}

}  // namespace hzio
