/// Read-ahead of the byte ranges a read will consume, in the order it consumes them: the ranges
/// a window ahead of the consumer are handed to the kernel (ReadFile::Prefetch, posix_fadvise
/// WILLNEED) so that a cold read keeps many device requests in flight and its I/O overlaps the
/// decoding and placing of earlier bytes, instead of each pread waiting for its own bytes. The
/// window is counted in bytes and slides as consumers start on their ranges; any thread may
/// report progress. Ranges next to each other in one file are advised together.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "hzio/storage/file.h"

namespace hzio {

class ReadAhead {
 public:
  /// One range to be read; `file` null or `size` 0: nothing to read.
  struct Range {
    std::shared_ptr<ReadFile> file;
    uint64_t offset = 0, size = 0;
  };

  /// `ranges` in consumption order; `window_bytes` is how far ahead of the consumer to advise.
  ReadAhead(std::vector<Range> ranges, uint64_t window_bytes);

  /// The consumer starts on range `i` (any thread, roughly in order): advises every range up to
  /// `window_bytes` past the start of range `i` that was not advised yet.
  void Started(size_t i);

  /// Ranges whose reading the kernel was asked to start so far (for tests).
  size_t advised() const;

 private:
  std::vector<Range> ranges_;
  std::vector<uint64_t> start_;  // bytes before range i in consumption order
  uint64_t window_;
  mutable std::mutex mu_;
  size_t advised_ = 0;
};

}  // namespace hzio
