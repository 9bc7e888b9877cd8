// ThreadPool (util/thread_pool.h): InTask tells pool work (tasks and ParallelFor bodies, on the
// pool's threads and the caller's) from other code, so the assembler knows when handing decode
// work to the pool would gain nothing.
#include "hzio/util/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace hzio {
namespace {

TEST(ThreadPool, InTaskInsideTasksAndParallelForBodiesOnly) {
  ThreadPool pool(2);
  EXPECT_FALSE(ThreadPool::InTask());
  std::promise<bool> in_task;
  pool.Submit([&] { in_task.set_value(ThreadPool::InTask()); });
  EXPECT_TRUE(in_task.get_future().get());
  std::atomic<int> outside{0}, bodies{0};
  pool.ParallelFor(64, [&](int64_t) {
    ++bodies;
    if (!ThreadPool::InTask()) ++outside;
  });
  EXPECT_EQ(bodies, 64);
  EXPECT_EQ(outside, 0);  // the caller's share of the bodies too
  EXPECT_FALSE(ThreadPool::InTask());  // and not after the call
  // Nor after a body that threw.
  EXPECT_THROW(pool.ParallelFor(4, [](int64_t) { throw std::runtime_error("task failed"); }), std::runtime_error);
  EXPECT_FALSE(ThreadPool::InTask());
}

}  // namespace
}  // namespace hzio
