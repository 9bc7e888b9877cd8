/// POSIX file access for block files: positional reads (pread, safe from many threads at once)
/// and the writes the writer needs. Every failure names the path.
///
/// Reads never map files: a file truncated while mapped kills the reader with SIGBUS, and block
/// files can be replaced under a reader (a FIFO or device in a file's place would hang it), so
/// files are opened non-blocking and anything but a regular file is refused.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/util/large_allocation.h"

namespace hzio {

/// O_DIRECT alignment of buffers, offsets and lengths, for direct reads (ReadFile::ReadUncached) and
/// direct writes (block_file_write.h): 4 KiB covers every logical block size in use (512 B and 4 KiB
/// sectors).
inline constexpr int64_t kDirectIoAlignment = 4096;

/// Whether a reader's large reads go past the page cache (ReadFile::ReadUncached). Direct reads
/// into huge-page staging keep this machine's disk at ~2.5 GB/s from one stream with no CPU copy,
/// where buffered cold reads swing between 0.6 and 2 GB/s; bytes already in the page cache are read
/// faster buffered (bench/mpi/RESULTS.md, "direct reads from huge pages").
enum class DirectReads {
  kWhenUncached,  // per file: direct when less than half of the bytes to read are in the page cache
  kAlways,        // direct wherever the file system allows it
  kNever,         // buffered
};

/// What identifies one version of a file: a file replaced by rename has another inode, one
/// rewritten in place another size or mtime.
struct FileIdentity {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
  /// "dev:ino:size:mtime", for version strings.
  std::string ToString() const;
};

/// The identity of `path` (following links), or nullopt if it does not exist; throws kIo naming
/// the path for any other failure.
std::optional<FileIdentity> StatIdentity(const std::string& path);

class ReadFile {
 public:
  /// Opens `path` for reading (O_NONBLOCK: never waits on a FIFO or device); returns nullptr if it
  /// does not exist, throws kIo "not a regular file" for a FIFO, device or directory, kIo otherwise.
  static std::shared_ptr<ReadFile> OpenIfExists(const std::string& path);
  ~ReadFile();
  ReadFile(const ReadFile&) = delete;
  ReadFile& operator=(const ReadFile&) = delete;

  const std::string& path() const { return path_; }
  /// The size when it was opened.
  uint64_t size() const { return identity_.size; }
  /// The identity of the opened file (fstat at open).
  const FileIdentity& identity() const { return identity_; }
  /// Reads exactly n bytes at offset; a short read is kCorrupt ("truncated").
  void ReadAt(uint64_t offset, uint64_t n, uint8_t* out) const;
  /// Reads up to n bytes at offset, fewer only at the end of the file; returns the count read.
  /// Throws kIo for an OS error.
  uint64_t ReadUpTo(uint64_t offset, uint64_t n, uint8_t* out) const;
  /// Asks the kernel to start reading [offset, offset + n) into the page cache now (read-ahead
  /// of bytes a query will read soon: the device gets many requests at once, and the reads
  /// overlap the work on earlier bytes). Advice only: never fails, cheap for cached bytes.
  void Prefetch(uint64_t offset, uint64_t n) const;
  /// How many of the bytes of `ranges` ((offset, size) pairs, disjoint) are in the page cache now:
  /// mincore over one mapping of their hull that is never touched (nothing is read, faulted or kept
  /// mapped), counted by whole pages and clipped to the ranges and the file. 0 where the file
  /// cannot be mapped. A hint for choosing how to read (a reader may read cached bytes the
  /// CPU-cheap way), never for correctness.
  uint64_t CachedBytes(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) const;
  /// Reads up to n bytes at offset bypassing the page cache (O_DIRECT: the device writes into
  /// `staging`, no copy out of the cache) where the file system allows it, else buffered (tmpfs
  /// and some network file systems refuse O_DIRECT with EINVAL). The read covers the whole 4 KiB
  /// blocks around the range, so `staging` is grown to hold them plus alignment; returns where
  /// the range's bytes start in it and sets `got` to how many of them were read (fewer only at
  /// the end of the file). The direct descriptor reopens this file's inode (/proc/self/fd), so
  /// a file renamed over since this one was opened is never read. `*direct` (if given) says
  /// whether the bytes came without the page cache. Throws kIo for an OS error. Thread-safe.
  const uint8_t* ReadUncached(uint64_t offset, uint64_t n, LargeAllocation& staging, uint64_t& got,
                              bool* direct = nullptr) const;

 private:
  ReadFile(std::string path, int fd, FileIdentity identity)
      : path_(std::move(path)), fd_(fd), identity_(identity) {}
  int DirectFd() const;  // the O_DIRECT descriptor, -1 where refused; opened on first use
  std::string path_;
  int fd_;
  FileIdentity identity_;
  mutable std::once_flag direct_once_;
  mutable std::atomic<int> direct_fd_{-1};
};

class WriteFile {
 public:
  /// Opens for read+write, creating it (and parent directories) if `create`.
  WriteFile(const std::string& path, bool create);
  ~WriteFile();
  WriteFile(const WriteFile&) = delete;
  WriteFile& operator=(const WriteFile&) = delete;

  uint64_t size() const;
  void WriteAt(uint64_t offset, const uint8_t* data, uint64_t n);
  void ReadAt(uint64_t offset, uint64_t n, uint8_t* out) const;
  void Sync();

 private:
  std::string path_;
  int fd_ = -1;
};

/// Creates every missing directory of `path`'s parent.
void MakeParentDirectories(const std::string& path);
bool FileExists(const std::string& path);
std::string ReadWholeFile(const std::string& path);

}  // namespace hzio
