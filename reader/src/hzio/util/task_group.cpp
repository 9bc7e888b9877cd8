#include "hzio/util/task_group.h"

#include <algorithm>

namespace hzio {

struct TaskGroup::State {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  size_t running = 0;
  std::exception_ptr error;
};

TaskGroup::TaskGroup(ThreadPool* pool, size_t max_pending)
    : pool_(pool), max_pending_(std::max<size_t>(max_pending, 1)), state_(std::make_shared<State>()) {}

TaskGroup::~TaskGroup() { Drain(); }

bool TaskGroup::RunOne(const std::shared_ptr<State>& state) {
  std::function<void()> task;
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (state->queue.empty()) return false;
    task = std::move(state->queue.front());
    state->queue.pop_front();
    ++state->running;
  }
  std::exception_ptr error;
  {
    bool skip;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      skip = state->error != nullptr;
    }
    if (!skip) {
      try {
        task();
      } catch (...) {
        error = std::current_exception();
      }
    }
  }
  std::lock_guard<std::mutex> lock(state->mu);
  if (error && !state->error) state->error = error;
  --state->running;
  state->cv.notify_all();
  return true;
}

void TaskGroup::Submit(std::function<void()> task) {
  if (!pool_ || pool_->size() == 0) {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->queue.push_back(std::move(task));
  } else {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->queue.push_back(std::move(task));
    }
    // Each queued task gets one pool slot; the slot runs whatever is queued first (or nothing,
    // when the producer or Wait already ran it).
    pool_->Submit([state = state_] { RunOne(state); });
  }
  // Over the limit (or without a pool): the producer works off the backlog itself.
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      if (state_->queue.size() <= ((!pool_ || pool_->size() == 0) ? 0 : max_pending_)) break;
    }
    if (!RunOne(state_)) break;
  }
}

void TaskGroup::Drain() {
  while (RunOne(state_)) {
  }
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait(lock, [&] { return state_->running == 0 && state_->queue.empty(); });
}

void TaskGroup::Wait() {
  Drain();
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->error) {
    std::exception_ptr e = state_->error;
    state_->error = nullptr;
    std::rethrow_exception(e);
  }
}

bool TaskGroup::failed() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->error != nullptr;
}

}  // namespace hzio
