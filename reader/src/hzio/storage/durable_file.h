/// The file-system steps of a write transaction (access/dataset_transaction.h): data made durable
/// with fsync of files and then of the directories that name them, a header replaced by one
/// atomic rename, files shared between two versions of a dataset by hard links (a copy where the
/// file system refuses links), byte ranges copied inside the kernel, and removals that tolerate
/// what is already gone. Every failure is a kIo hzio::Error naming the path and the OS reason
/// (e.g. "No space left on device"). Each step that changes the file system passes a test crash
/// point (util/crash_point.h).
#pragma once

#include <sys/uio.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/util/error.h"

namespace hzio {

class WriteSourceMap;  // storage/write_source_pages.h

/// Error(kIo, "PATH: WHAT: <strerror(errno)>"), with errno as it is when called.
Error OsError(const std::string& path, const std::string& what);

/// An open file descriptor, closed on destruction.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd();
  ScopedFd(ScopedFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ScopedFd& operator=(ScopedFd&& o) noexcept;
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  /// Gives up ownership: returns the descriptor, which the caller must close.
  int Release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// Opens `path` read-only; an invalid ScopedFd if it does not exist, kIo otherwise.
ScopedFd OpenForReadingIfExists(const std::string& path);

/// pread of exactly `n` bytes at `offset`: kCorrupt ("truncated") naming `path` on a short file.
void ReadExactlyAt(int fd, uint8_t* out, uint64_t n, uint64_t offset, const std::string& path);
/// pwrite of exactly `n` bytes at `offset` (a crash point first); kIo naming `path`.
void WriteExactlyAt(int fd, const uint8_t* data, uint64_t n, uint64_t offset, const std::string& path);
/// pwritev of every byte of `iov` (consumed) at `offset`, as few calls as IOV_MAX allows (a crash
/// point before each); kIo naming `path`. The source pages are mapped first
/// (storage/write_source_pages.h): those `sources` has not mapped yet, or without it all of a large write's.
void WriteVectorAt(int fd, std::vector<iovec>& iov, uint64_t offset, const std::string& path,
                   WriteSourceMap* sources = nullptr);

/// fsync of the file at `path`.
void SyncFile(const std::string& path);
/// fsync of a directory: makes the names created, renamed or removed in it durable.
void SyncDirectory(const std::string& dir);
/// The directory part of `path` ("." when it has none).
std::string ParentDirectory(const std::string& path);

/// Writes `text` to `path` through a temporary file beside it (`path.tmp.PID`) and a rename: a
/// reader sees the old file or the new one, never a part. With `sync` the file and then its
/// directory are fsynced. The temporary file is removed on failure.
void WriteFileAtomically(const std::string& path, const std::string& text, bool sync = false);

/// rename(2) of `from` onto `to` (same file system); with `sync` fsyncs the directory of `to`.
void RenameFile(const std::string& from, const std::string& to, bool sync = false);

/// Makes `to` a second name of `from` (a hard link, replacing a leftover `to`), or a copy of it
/// where the file system cannot link (EXDEV, EPERM, EMLINK, EOPNOTSUPP). Returns true if linked.
bool LinkOrCopy(const std::string& from, const std::string& to);

/// Copies `n` bytes from `in` at `in_offset` to `out` at `out_offset` (copy_file_range: no trip
/// through user space, a shared extent where the file system can; pread/pwrite otherwise).
/// `in_path`/`out_path` name the files in errors.
void CopyBytes(int in, uint64_t in_offset, int out, uint64_t out_offset, uint64_t n, const std::string& in_path,
               const std::string& out_path);

/// Removes a file or an empty directory; returns false if it did not exist.
bool RemovePath(const std::string& path);
/// Removes a directory tree (or a file) if it exists.
void RemoveTree(const std::string& path);
/// Removes `dir` and then its parents, up to but excluding `stop`, as long as they are empty.
void RemoveEmptyDirectories(const std::string& dir, const std::string& stop);

/// Creates `dir` and its missing parents.
void MakeDirectories(const std::string& dir);

}  // namespace hzio
