/// A fixed pool of worker threads for block encoding and decoding (both cores, never the caller's
/// I/O thread), with a ParallelFor that rethrows the first task error in the caller.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hzio {

class ThreadPool {
 public:
  /// `threads` <= 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  void Submit(std::function<void()> task);
  /// Runs fn(i) for i in [0, n) on the pool and the calling thread; waits for all; rethrows the
  /// first exception (remaining items are skipped once one failed).
  void ParallelFor(int64_t n, const std::function<void(int64_t)>& fn);

  /// A process-wide pool sized to the machine, created on first use.
  static ThreadPool& Shared();

  /// Whether the calling thread runs a pool task or a ParallelFor body (of any pool): work it
  /// does is already spread over the threads, so handing it on to the pool gains nothing.
  static bool InTask();

 private:
  void Run();

  std::vector<std::thread> workers_;
  std::deque<std::function<void()>> queue_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

}  // namespace hzio
