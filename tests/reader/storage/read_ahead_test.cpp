// ReadAhead (storage/read_ahead.h): ranges are advised a window ahead of the consumer, in order,
// once each; and an advised range ends up in the page cache (checked with mincore on the test's
// own file after evicting it with POSIX_FADV_DONTNEED).
#include "hzio/storage/read_ahead.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace hzio {
namespace {

using testing::TempDir;

std::shared_ptr<ReadFile> MakeFile(const TempDir& dir, const std::string& name, size_t bytes) {
  testing::WriteBytes(dir.File(name), std::vector<uint8_t>(bytes, 5));
  return ReadFile::OpenIfExists(dir.File(name));
}

TEST(ReadAhead, AdvisesTheWindowAheadOfTheConsumerOnce) {
  TempDir dir;
  auto a = MakeFile(dir, "a", 1 << 20), b = MakeFile(dir, "b", 1 << 20);
  std::vector<ReadAhead::Range> ranges;
  for (int i = 0; i < 8; ++i) ranges.push_back(ReadAhead::Range{i < 4 ? a : b, uint64_t(i % 4) * 100000, 100000});
  ranges.insert(ranges.begin() + 2, ReadAhead::Range{});  // nothing to read for this task
  ReadAhead ra(ranges, 250000);
  EXPECT_EQ(ra.advised(), 0u);
  ra.Started(0);  // ranges starting before 250000 bytes: 0, 1, (empty), 3
  EXPECT_EQ(ra.advised(), 4u);
  ra.Started(1);  // window now ends at 350000: range 4 starts at 300000
  EXPECT_EQ(ra.advised(), 5u);
  ra.Started(1);
  EXPECT_EQ(ra.advised(), 5u);
  ra.Started(8);
  EXPECT_EQ(ra.advised(), 9u);
  ra.Started(100);  // beyond the last: nothing
  EXPECT_EQ(ra.advised(), 9u);
}

// Pages of [0, bytes) of `path` in the page cache.
size_t ResidentPages(const std::string& path, size_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  void* map = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return 0;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((bytes + page - 1) / page);
  ::mincore(map, bytes, resident.data());
  ::munmap(map, bytes);
  size_t n = 0;
  for (unsigned char r : resident) n += r & 1;
  return n;
}

TEST(ReadAhead, AdvisedBytesReachThePageCache) {
  TempDir dir;
  constexpr size_t kBytes = 8 << 20;
  auto file = MakeFile(dir, "data", kBytes);
  const int fd = ::open(dir.File("data").c_str(), O_RDONLY);
  ::fdatasync(fd);  // written pages are dirty: write them out so that they can be evicted
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  const size_t before = ResidentPages(dir.File("data"), kBytes);
  ReadAhead ra({ReadAhead::Range{file, 0, kBytes / 2}, ReadAhead::Range{file, kBytes / 2, kBytes / 2}}, kBytes);
  ra.Started(0);
  EXPECT_EQ(ra.advised(), 2u);
  // The kernel reads in the background: wait for it (bounded).
  size_t after = 0;
  for (int i = 0; i < 200 && (after = ResidentPages(dir.File("data"), kBytes)) * 4096 < kBytes; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_LT(before * 4096, kBytes) << "the file could not be evicted from the page cache first";
  EXPECT_EQ(after * 4096, kBytes);
}

}  // namespace
}  // namespace hzio
