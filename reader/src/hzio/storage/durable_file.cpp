#include "hzio/storage/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <vector>

#include "hzio/storage/write_source_pages.h"
#include "hzio/util/crash_point.h"

namespace hzio {

namespace fs = std::filesystem;

Error OsError(const std::string& path, const std::string& what) {
  return Error(ErrorCode::kIo, path + ": " + what + ": " + std::strerror(errno));
}

ScopedFd::~ScopedFd() {
  if (fd_ >= 0) ::close(fd_);
}

ScopedFd& ScopedFd::operator=(ScopedFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

ScopedFd OpenForReadingIfExists(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return ScopedFd();
    throw OsError(path, "cannot open");
  }
  ScopedFd f(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw OsError(path, "cannot stat");
  Check(S_ISREG(st.st_mode), ErrorCode::kIo, path + ": not a regular file");
  return f;
}

void ReadExactlyAt(int fd, uint8_t* out, uint64_t n, uint64_t offset, const std::string& path) {
  for (uint64_t done = 0; done < n;) {
    const ssize_t r = ::pread(fd, out + done, static_cast<size_t>(std::min<uint64_t>(n - done, 1u << 30)),
                              static_cast<off_t>(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw OsError(path, "cannot read");
    Check(r > 0, ErrorCode::kCorrupt, path + ": truncated at byte " + std::to_string(offset + done));
    done += static_cast<uint64_t>(r);
  }
}

void WriteExactlyAt(int fd, const uint8_t* data, uint64_t n, uint64_t offset, const std::string& path) {
  CrashPoint("write " + path);
  MapWriteSourcePages(fd, data, static_cast<size_t>(n));
  for (uint64_t done = 0; done < n;) {
    const ssize_t w = ::pwrite(fd, data + done, static_cast<size_t>(std::min<uint64_t>(n - done, 1u << 30)),
                               static_cast<off_t>(offset + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw OsError(path, "cannot write");
    done += static_cast<uint64_t>(w);
  }
}

void WriteVectorAt(int fd, std::vector<iovec>& iov, uint64_t offset, const std::string& path,
                   WriteSourceMap* sources) {
  MapWriteSourcePages(fd, iov.data(), iov.size(), sources);
  size_t first = 0;
  while (first < iov.size()) {
    CrashPoint("write " + path);
    const int n = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
    const ssize_t w = ::pwritev(fd, iov.data() + first, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw OsError(path, "cannot write");
    offset += static_cast<uint64_t>(w);
    size_t left = static_cast<size_t>(w);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < iov.size() && left > 0) {
      iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
}

namespace {

void SyncOpened(const std::string& path, int flags) {
  ScopedFd fd(::open(path.c_str(), flags | O_CLOEXEC));
  if (!fd.valid()) throw OsError(path, "cannot open to fsync");
  if (::fsync(fd.get()) != 0) throw OsError(path, "fsync failed");
}

}  // namespace

void SyncFile(const std::string& path) { SyncOpened(path, O_RDONLY); }

void SyncDirectory(const std::string& dir) { SyncOpened(dir, O_RDONLY | O_DIRECTORY); }

std::string ParentDirectory(const std::string& path) {
  const std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

void WriteFileAtomically(const std::string& path, const std::string& text, bool sync) {
  MakeDirectories(ParentDirectory(path));
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    ScopedFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) throw OsError(tmp, "cannot create");
    WriteExactlyAt(fd.get(), reinterpret_cast<const uint8_t*>(text.data()), text.size(), 0, tmp);
    if (sync && ::fsync(fd.get()) != 0) throw OsError(tmp, "fsync failed");
    CrashPoint("written " + tmp);
    RenameFile(tmp, path, sync);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

void RenameFile(const std::string& from, const std::string& to, bool sync) {
  CrashPoint("before rename " + to);
  if (::rename(from.c_str(), to.c_str()) != 0) throw OsError(to, "cannot rename " + from + " to it");
  CrashPoint("after rename " + to);
  if (sync) SyncDirectory(ParentDirectory(to));
}

bool LinkOrCopy(const std::string& from, const std::string& to) {
  CrashPoint("link " + to);
  if (::link(from.c_str(), to.c_str()) == 0) return true;
  if (errno == EEXIST) {  // a leftover of an interrupted attempt: replace it
    if (::unlink(to.c_str()) != 0 && errno != ENOENT) throw OsError(to, "cannot remove");
    if (::link(from.c_str(), to.c_str()) == 0) return true;
  }
  if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != EOPNOTSUPP)
    throw OsError(to, "cannot link " + from + " to it");
  // The file system cannot link: copy through a temporary name, so `to` is never half a copy.
  ScopedFd in = OpenForReadingIfExists(from);
  if (!in.valid()) throw Error(ErrorCode::kIo, from + ": vanished while being copied to " + to);
  struct stat st {};
  if (::fstat(in.get(), &st) != 0) throw OsError(from, "cannot stat");
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  try {
    ScopedFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!out.valid()) throw OsError(tmp, "cannot create");
    CopyBytes(in.get(), 0, out.get(), 0, static_cast<uint64_t>(st.st_size), from, tmp);
    RenameFile(tmp, to);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  return false;
}

void CopyBytes(int in, uint64_t in_offset, int out, uint64_t out_offset, uint64_t n, const std::string& in_path,
               const std::string& out_path) {
  bool kernel_copy = true;
  std::vector<uint8_t> buffer;
  while (n > 0) {
    if (kernel_copy) {
      loff_t from = static_cast<loff_t>(in_offset), to = static_cast<loff_t>(out_offset);
      const ssize_t c = ::copy_file_range(in, &from, out, &to, static_cast<size_t>(std::min<uint64_t>(n, 1u << 30)), 0);
      if (c > 0) {
        in_offset += static_cast<uint64_t>(c);
        out_offset += static_cast<uint64_t>(c);
        n -= static_cast<uint64_t>(c);
        continue;
      }
      if (c < 0 && errno == EINTR) continue;
      if (c == 0) throw Error(ErrorCode::kCorrupt, in_path + ": shorter than expected while copying to " + out_path);
      if (errno == ENOSPC || errno == EIO || errno == EDQUOT || errno == EFBIG) throw OsError(out_path, "cannot write");
      kernel_copy = false;  // EXDEV, EINVAL, ENOSYS, EOPNOTSUPP...: copy through user space
    }
    if (buffer.empty()) buffer.resize(size_t{4} << 20);
    const size_t want = static_cast<size_t>(std::min<uint64_t>(n, buffer.size()));
    const ssize_t r = ::pread(in, buffer.data(), want, static_cast<off_t>(in_offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw OsError(in_path, "cannot read");
    if (r == 0) throw Error(ErrorCode::kCorrupt, in_path + ": shorter than expected while copying to " + out_path);
    for (ssize_t done = 0; done < r;) {
      const ssize_t w = ::pwrite(out, buffer.data() + done, static_cast<size_t>(r - done),
                                 static_cast<off_t>(out_offset + static_cast<uint64_t>(done)));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw OsError(out_path, "cannot write");
      done += w;
    }
    in_offset += static_cast<uint64_t>(r);
    out_offset += static_cast<uint64_t>(r);
    n -= static_cast<uint64_t>(r);
  }
}

bool RemovePath(const std::string& path) {
  CrashPoint("remove " + path);
  if (::remove(path.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  throw OsError(path, "cannot remove");
}

void RemoveTree(const std::string& path) {
  CrashPoint("remove tree " + path);
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw Error(ErrorCode::kIo, path + ": cannot remove: " + ec.message());
}

void RemoveEmptyDirectories(const std::string& dir, const std::string& stop) {
  const fs::path stop_path = fs::path(stop).lexically_normal();
  for (fs::path d = fs::path(dir).lexically_normal(); !d.empty() && d != stop_path && d != d.parent_path();
       d = d.parent_path()) {
    // A directory that is not empty keeps its parents non-empty too; one already gone may not.
    if (::rmdir(d.c_str()) != 0 && errno != ENOENT) return;
  }
}

void MakeDirectories(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::kIo, dir + ": cannot create directory: " + ec.message());
}

}  // namespace hzio
