// The writer's lock (storage/lock_file.h): one holder at a time, a clear kLocked naming it,
// --wait waits, the lock goes with its holder.
#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>
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
  // Released: no stale holder, and no file that OpenVisus's IdxFile::save would wait for forever.
  EXPECT_FALSE(std::filesystem::exists(lock_path));
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

// Holders remove the file as they let go: writers that opened it before still never hold the
// dataset together (each checks that its locked file is the one the path names).
TEST(LockFile, OneHolderAtATimeThoughHoldersRemoveTheFile) {
  testing::TempDir dir;
  const std::string lock_path = dir.File("d.idx.lock");
  LockOptions wait;
  wait.wait = true;
  std::atomic<int> holders{0}, most{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto lock = LockFile::Acquire(lock_path, "d.idx", wait);
        const int now = ++holders;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        --holders;
      }
    });
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(most, 1);
  EXPECT_FALSE(std::filesystem::exists(lock_path));
}

// A second descriptor of the holder's open file.
int DupOfOpenFile(const std::string& path) {
  struct stat named {};
  if (::stat(path.c_str(), &named) != 0) return -1;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    struct stat held {};
    if (::fstat(fd, &held) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino) return ::dup(fd);
  }
  return -1;
}

// A holder, and a second descriptor of its file: while that stays open the file stays locked
// after the holder lets go (OFD locks go with the last close), as when the holder's own close is
// still pending (it runs on a thread of its own: it can wait seconds for ext4's journal).
class LockFileLingering : public ::testing::Test {
 protected:
  void SetUp() override {
    holder_ = LockFile::Acquire(lock_path_, "d.idx");
    lingering_ = DupOfOpenFile(lock_path_);
    ASSERT_GE(lingering_, 0);
  }
  void TearDown() override { CloseLingering(); }
  void CloseLingering() {
    if (lingering_ >= 0) ::close(lingering_);
    lingering_ = -1;
  }

  testing::TempDir dir_;
  const std::string lock_path_ = dir_.File("d.idx.lock");
  std::unique_ptr<LockFile> holder_;
  int lingering_ = -1;
};

// The next writer takes the lock at once all the same, without --wait, on a new file.
TEST_F(LockFileLingering, NextWriterGetsInWhileTheOldFileStaysLocked) {
  holder_.reset();
  EXPECT_FALSE(std::filesystem::exists(lock_path_));
  std::unique_ptr<LockFile> next;
  EXPECT_NO_THROW(next = LockFile::Acquire(lock_path_, "d.idx"));
  EXPECT_TRUE(std::filesystem::exists(lock_path_));
  EXPECT_FALSE(IsAbandonedLockFile(lock_path_));  // held by `next`
}

// A writer waiting with --wait is not held up by the removed file either, however long that file
// stays locked (a pending close, or a process the holder forked keeping it open).
TEST_F(LockFileLingering, WaiterMovesOnToTheNewFile) {
  LockOptions wait;
  wait.wait = true;
  int notes = 0;
  wait.on_wait = [&](const std::string&) { ++notes; };
  auto waiter = std::async(std::launch::async, [&] { return LockFile::Acquire(lock_path_, "d.idx", wait); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(waiter.wait_for(std::chrono::seconds(0)), std::future_status::timeout);  // still held
  holder_.reset();
  const bool moved_on = waiter.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  CloseLingering();  // lets a waiter stuck on the old file go, so that a failure ends
  EXPECT_TRUE(moved_on);
  auto lock = waiter.get();
  EXPECT_TRUE(std::filesystem::exists(lock_path_));
  EXPECT_EQ(notes, 1);
}

TEST(LockFile, UnwritableDirectoryIsAClearError) {
  EXPECT_TRUE(ThrowsError([] { LockFile::Acquire("/proc/hzio-no-such/d.idx.lock", "d.idx"); }, ErrorCode::kIo,
              {"/proc/hzio-no-such"}));
}

}  // namespace
}  // namespace hzio
