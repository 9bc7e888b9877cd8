// The writer's lock (storage/lock_file.h): one holder at a time, a clear kLocked naming it,
// --wait waits, the lock goes with its holder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "support/test_support.h"
#include "hzio/storage/lock_file.h"

namespace hzio {
namespace {

using testing::ThrowsError;

TEST(LockFile, SecondWriterFailsNamingTheHolder) {
  testing::TempDir dir;
  const std::string lock_path = LockPathFor(dir.File("d.idx"));
  EXPECT_EQ(lock_path, dir.File("d.idx.lock"));
  auto first = LockFile::Acquire(lock_path, "d.idx");
  EXPECT_NE(testing::ReadText(lock_path).find("pid " + std::to_string(::getpid())), std::string::npos);
  EXPECT_TRUE(ThrowsError([&] { LockFile::Acquire(lock_path, "d.idx"); }, ErrorCode::kLocked,
              {"d.idx is being written by pid " + std::to_string(::getpid()), "on host", "started at", "--wait"}));
  first.reset();
  EXPECT_EQ(testing::ReadText(lock_path), "");  // released: no stale holder
  auto again = LockFile::Acquire(lock_path, "d.idx");
  EXPECT_NE(again, nullptr);
}

TEST(LockFile, WaitBlocksUntilTheHolderLetsGo) {
  testing::TempDir dir;
  const std::string lock_path = dir.File("d.idx.lock");
  auto holder = LockFile::Acquire(lock_path, "d.idx");
  std::atomic<bool> noted{false}, acquired{false};
  LockOptions wait;
  wait.wait = true;
  wait.on_wait = [&](const std::string& message) {
    EXPECT_NE(message.find("waiting"), std::string::npos) << message;
    noted = true;
  };
  std::thread waiter([&] {
    auto lock = LockFile::Acquire(lock_path, "d.idx", wait);
    acquired = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(noted);
  EXPECT_FALSE(acquired);
  holder.reset();
  waiter.join();
  EXPECT_TRUE(acquired);
}

TEST(LockFile, UnwritableDirectoryIsAClearError) {
  EXPECT_TRUE(ThrowsError([] { LockFile::Acquire("/proc/hzio-no-such/d.idx.lock", "d.idx"); }, ErrorCode::kIo,
              {"/proc/hzio-no-such"}));
}

}  // namespace
}  // namespace hzio
