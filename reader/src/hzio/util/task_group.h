/// Tasks handed to a ThreadPool by one producer that must not wait for each (a network loop
/// delivering responses while it keeps receiving), then waited for together. At most
/// `max_pending` tasks wait at once: beyond that, Submit runs queued tasks on the producer's
/// thread, so a fast producer cannot pile up memory; Wait also runs what is still queued, so the
/// group finishes even when every pool thread is busy (or is the caller). The first exception of a
/// task is rethrown by Wait; tasks not started yet are then dropped.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "hzio/util/thread_pool.h"

namespace hzio {

class TaskGroup {
 public:
  /// `pool` null: every task runs inline in Submit.
  TaskGroup(ThreadPool* pool, size_t max_pending);
  /// Waits for the tasks (their errors are dropped here: call Wait to see them).
  ~TaskGroup();
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  void Submit(std::function<void()> task);
  /// Runs or waits for every submitted task; rethrows the first task error.
  void Wait();
  /// Whether a task has failed (producers may stop early).
  bool failed() const;

 private:
  struct State;
  static bool RunOne(const std::shared_ptr<State>& state);
  void Drain();  // runs or waits for every task, keeping any error

  ThreadPool* pool_;
  size_t max_pending_;
  std::shared_ptr<State> state_;
};

}  // namespace hzio
