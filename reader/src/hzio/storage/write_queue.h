/// Writes payloads to files on a background thread, so that the kernel's copy into the page cache
/// overlaps with the next batch's gather and encode. Bounded: Push blocks while `max_pending`
/// buffers wait. The first I/O error is rethrown by the next Push, Drain or Rethrow.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "hzio/util/byte_buffer.h"

namespace hzio {

class WriteQueue {
 public:
  /// `recycle` receives every buffer once its bytes are written (on the queue's thread).
  WriteQueue(size_t max_pending, std::function<void(ByteBuffer)> recycle);
  ~WriteQueue();  // drains, then stops; errors at this point are dropped (callers Drain first)
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  /// Queues `payload` for writing at `offset` of `path` (an existing file).
  void Push(std::string path, uint64_t offset, ByteBuffer payload);
  /// Waits until everything queued is written; rethrows the first error.
  void Drain();

 private:
  struct Job {
    std::string path;
    uint64_t offset;
    ByteBuffer payload;
  };
  void Run();
  void RethrowLocked();

  const size_t max_pending_;
  std::function<void(ByteBuffer)> recycle_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace hzio
