/// POSIX file access for block files: positional reads (pread, safe from many threads at once)
/// and the writes the writer needs. Every failure names the path.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace hzio {

class ReadFile {
 public:
  /// Opens `path` for reading; returns nullptr if it does not exist, throws kIo otherwise.
  static std::shared_ptr<ReadFile> OpenIfExists(const std::string& path);
  ~ReadFile();

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  /// Reads exactly n bytes at offset; a short read is kCorrupt ("truncated").
  void ReadAt(uint64_t offset, uint64_t n, uint8_t* out) const;
  /// The whole file mapped read-only (mapped on first use; null if mapping failed, in which case
  /// callers use ReadAt). Saves the copy pread makes out of the page cache.
  const uint8_t* Mapped() const;

 private:
  ReadFile(std::string path, int fd, uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  std::string path_;
  int fd_;
  uint64_t size_;
  mutable std::once_flag map_once_;
  mutable void* map_ = nullptr;
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
