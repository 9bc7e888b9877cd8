// TaskGroup (util/task_group.h): every task runs once, errors reach Wait, the backlog stays bounded,
// and a group finishes even when the pool's threads are all busy.
#include "hzio/util/task_group.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "support/test_support.h"

namespace hzio {
namespace {

TEST(TaskGroup, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> runs(500);
  TaskGroup group(&pool, 4);
  for (size_t i = 0; i < runs.size(); ++i) group.Submit([&, i] { ++runs[i]; });
  group.Wait();
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
}

TEST(TaskGroup, FirstErrorReachesWait) {
  ThreadPool pool(2);
  TaskGroup group(&pool, 8);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i)
    group.Submit([&, i] {
      ++ran;
      if (i == 10) throw Error(ErrorCode::kCorrupt, "task 10 failed");
    });
  EXPECT_HZIO_ERROR(group.Wait(), ErrorCode::kCorrupt, "task 10 failed");
  EXPECT_LE(ran.load(), 100);
  group.Wait();  // the error was reported once
}

TEST(TaskGroup, BacklogIsBounded) {
  ThreadPool pool(1);
  std::atomic<bool> release{false};
  pool.Submit([&] {
    while (!release) std::this_thread::yield();  // the only pool thread is busy
  });
  TaskGroup group(&pool, 2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) group.Submit([&] { ++ran; });
  // With no free pool thread, the producer ran all but the 2 allowed to wait.
  EXPECT_GE(ran.load(), 18);
  group.Wait();  // runs the rest itself
  EXPECT_EQ(ran.load(), 20);
  release = true;
}

TEST(TaskGroup, WithoutPoolRunsInline) {
  TaskGroup group(nullptr, 1);
  int ran = 0;
  group.Submit([&] { ++ran; });
  EXPECT_EQ(ran, 1);
  group.Wait();
}

}  // namespace
}  // namespace hzio
