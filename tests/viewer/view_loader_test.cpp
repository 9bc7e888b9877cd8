// The background loader (viewer/src/view_loader.h): steps arrive coarse to fine with the right
// samples, a newer request supersedes an older one, tasks run first, errors name the request.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "view_loader.h"
#include "support/test_support.h"

namespace hzio::viewer {
namespace {

// Collects callbacks from the worker thread.
struct Inbox {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<LoadedStep> steps;
  std::vector<std::pair<uint64_t, std::string>> errors;
  std::vector<std::string> events;

  ViewLoader::StepCallback OnStep() {
    return [this](LoadedStep s) {
      std::lock_guard lock(mutex);
      events.push_back("step " + std::to_string(s.generation) + ":" + std::to_string(s.index));
      steps.push_back(std::move(s));
      cv.notify_all();
    };
  }
  ViewLoader::ErrorCallback OnError() {
    return [this](uint64_t g, const std::string& m) {
      std::lock_guard lock(mutex);
      errors.emplace_back(g, m);
      cv.notify_all();
    };
  }
  template <typename Pred>
  bool WaitFor(Pred pred) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(30), pred);
  }
};

LoadRequest Request(std::shared_ptr<Dataset> ds, std::vector<LoadStep> steps) {
  return LoadRequest{std::move(ds), "", std::nullopt, std::move(steps)};
}

TEST(ViewLoader, StepsArriveInOrderWithTheRightSamples) {
  hzio::testing::TempDir dir;
  auto ds = OpenDataset(hzio::testing::WriteSyntheticDataset(dir, 32, 32, 32));
  Inbox inbox;
  ViewLoader loader(inbox.OnStep(), inbox.OnError());
  const Box box{Point{4, 8, 0}, Point{20, 24, 16}};
  const uint64_t g = loader.Submit(Request(ds, {{box, 9}, {box, 12}, {box, 15}}));
  ASSERT_TRUE(inbox.WaitFor([&] { return inbox.steps.size() == 3; }));
  for (size_t i = 0; i < 3; ++i) {
    const LoadedStep& s = inbox.steps[i];
    EXPECT_EQ(s.generation, g);
    EXPECT_EQ(s.index, i);
    EXPECT_EQ(s.final, i == 2);
    EXPECT_EQ(s.step.level, 9 + 3 * static_cast<int>(i));
    EXPECT_EQ(s.bytes, s.result.data.ByteSize());
    const Grid& grid = s.result.grid;
    const float* v = reinterpret_cast<const float*>(s.result.data.data());
    for (int64_t k = 0; k < grid.NumSamples(); ++k) {
      const int64_t x = grid.origin[0] + (k % grid.count[0]) * grid.stride[0];
      const int64_t y = grid.origin[1] + (k / grid.count[0] % grid.count[1]) * grid.stride[1];
      const int64_t z = grid.origin[2] + (k / (grid.count[0] * grid.count[1])) * grid.stride[2];
      ASSERT_EQ(v[k], hzio::testing::SyntheticValue(x, y, z, 0)) << "step " << i << " sample " << k;
    }
  }
  EXPECT_EQ(inbox.steps[2].result.grid.NumSamples(), 16 * 16 * 16);
  EXPECT_EQ(loader.bytes_loaded(), inbox.steps[0].bytes + inbox.steps[1].bytes + inbox.steps[2].bytes);
  for (int i = 0; i < 1000 && !loader.Idle(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(loader.Idle());
}

TEST(ViewLoader, NewerRequestSupersedesOlder) {
  hzio::testing::TempDir dir;
  auto ds = OpenDataset(hzio::testing::WriteSyntheticDataset(dir, 64, 64, 64));
  Inbox inbox;
  ViewLoader loader(inbox.OnStep(), inbox.OnError());
  const Box all{Point{0, 0, 0}, Point{64, 64, 64}};
  std::vector<LoadStep> many(40, LoadStep{all, 18});
  const uint64_t old_generation = loader.Submit(Request(ds, many));
  ASSERT_TRUE(inbox.WaitFor([&] { return !inbox.steps.empty(); }));
  size_t old_before;
  {
    std::lock_guard lock(inbox.mutex);
    old_before = inbox.steps.size();
  }
  const uint64_t new_generation = loader.Submit(Request(ds, {{all, 6}, {all, 9}}));
  EXPECT_GT(new_generation, old_generation);
  EXPECT_FALSE(loader.IsCurrent(old_generation));
  ASSERT_TRUE(inbox.WaitFor([&] {
    return !inbox.steps.empty() && inbox.steps.back().generation == new_generation && inbox.steps.back().final;
  }));
  size_t old_total = 0;
  for (const auto& s : inbox.steps) old_total += s.generation == old_generation;
  // At most the query already running when the new request came is still delivered.
  EXPECT_LE(old_total, old_before + 1);
  EXPECT_LT(old_total, many.size());
}

TEST(ViewLoader, TasksRunBeforeViewStepsAndErrorsNameTheRequest) {
  hzio::testing::TempDir dir;
  auto ds = OpenDataset(hzio::testing::WriteSyntheticDataset(dir, 16, 16, 16));
  Inbox inbox;
  ViewLoader loader(inbox.OnStep(), inbox.OnError());
  std::atomic<bool> release{false};
  loader.Post([&](const ViewLoader::Deliver& deliver) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    deliver([&] {
      std::lock_guard lock(inbox.mutex);
      inbox.events.push_back("task");
    });
  });
  const Box outside{Point{100, 0, 0}, Point{120, 8, 8}};
  const uint64_t bad = loader.Submit(Request(ds, {{Box{Point{0, 0, 0}, Point{8, 8, 8}}, 12}, {outside, 12}}));
  release = true;
  ASSERT_TRUE(inbox.WaitFor([&] { return !inbox.errors.empty(); }));
  std::lock_guard lock(inbox.mutex);
  ASSERT_GE(inbox.events.size(), 2u);
  EXPECT_EQ(inbox.events[0], "task");
  EXPECT_EQ(inbox.events[1], "step " + std::to_string(bad) + ":0");
  EXPECT_EQ(inbox.errors[0].first, bad);
  EXPECT_NE(inbox.errors[0].second.find("outside the dataset"), std::string::npos) << inbox.errors[0].second;
}

TEST(ViewLoader, NoCallbackAfterDestruction) {
  hzio::testing::TempDir dir;
  auto ds = OpenDataset(hzio::testing::WriteSyntheticDataset(dir, 64, 64, 64));
  std::atomic<bool> destroyed{false};
  std::atomic<int> late{0};
  {
    ViewLoader loader([&](LoadedStep) { late += destroyed ? 1 : 0; }, [](uint64_t, const std::string&) {});
    loader.Submit(Request(ds, std::vector<LoadStep>(50, LoadStep{Box{Point{0, 0, 0}, Point{64, 64, 64}}, 18})));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  destroyed = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(late, 0);
}

}  // namespace
}  // namespace hzio::viewer
