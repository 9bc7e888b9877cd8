#include "hzio/util/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <exception>

namespace hzio {

namespace {

// How many pool tasks / ParallelFor bodies the calling thread is inside (they may nest).
thread_local int task_depth = 0;

struct InTaskScope {
  InTaskScope() { ++task_depth; }
  ~InTaskScope() { --task_depth; }
};

}  // namespace

bool ThreadPool::InTask() { return task_depth > 0; }

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { Run(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void ThreadPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    InTaskScope scope;
    task();
  }
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t)>& fn) {
  if (n <= 0) return;
  struct State {
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex mu;
    std::condition_variable done_cv;
    int running = 0;
  };
  auto state = std::make_shared<State>();
  auto body = [state, n, &fn] {
    InTaskScope scope;
    for (int64_t i; !state->failed && (i = state->next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(state->mu);
        if (!state->failed.exchange(true)) state->error = std::current_exception();
      }
    }
  };
  // Helpers never outlive this call: we wait for every one we started.
  const int helpers = static_cast<int>(std::min<int64_t>(n - 1, size()));
  state->running = helpers;
  for (int h = 0; h < helpers; ++h) {
    Submit([state, body] {
      body();
      std::lock_guard<std::mutex> lock(state->mu);
      if (--state->running == 0) state->done_cv.notify_all();
    });
  }
  body();
  std::unique_lock<std::mutex> lock(state->mu);
  state->done_cv.wait(lock, [&] { return state->running == 0; });
  if (state->error) std::rethrow_exception(state->error);
}

ThreadPool& ThreadPool::Shared() {
  static ThreadPool pool;
  return pool;
}

}  // namespace hzio
