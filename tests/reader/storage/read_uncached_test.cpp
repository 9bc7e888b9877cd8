// ReadFile::ReadUncached (storage/file.h): reads past the page cache (O_DIRECT through an aligned
// staging buffer) hold exactly the bytes of any range, unaligned offsets and the end of the file
// included; a file system that refuses O_DIRECT (procfs) gives the same bytes buffered; and the
// direct descriptor reads the opened file even after another was renamed over its path.
#include "hzio/storage/file.h"

#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "support/test_support.h"

namespace hzio {
namespace {

std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (uint8_t& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

bool OnExt4(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC;
}

// Reads the ranges of `bytes`'s file through ReadUncached and checks every byte; returns whether
// all went direct.
bool ExpectRangesRead(const ReadFile& f, const std::vector<uint8_t>& bytes) {
  const uint64_t size = bytes.size();
  struct Case { uint64_t offset, n, expect; };
  const Case cases[] = {{0, size, size},           {1, 4095, 4095},       {4095, 2, 2},
                        {5000, (1u << 20) + 7, (1u << 20) + 7}, {size - 10, 10, 10}, {size - 10, 100, 10},
                        {size + 5000, 10, 0},      {8192, 0, 0}};
  bool all_direct = true;
  LargeAllocation staging;
  for (const Case& c : cases) {
    uint64_t got = 12345;
    bool direct = false;
    const uint8_t* p = f.ReadUncached(c.offset, c.n, staging, got, &direct);
    EXPECT_EQ(got, c.expect) << "offset " << c.offset << " n " << c.n;
    if (got == c.expect && c.expect > 0)
      EXPECT_EQ(std::memcmp(p, bytes.data() + c.offset, static_cast<size_t>(got)), 0) << "offset " << c.offset;
    all_direct = all_direct && direct;
  }
  return all_direct;
}

TEST(ReadUncached, HoldsTheBytesOfAnyRange) {
  testing::TempDir dir;
  const std::vector<uint8_t> bytes = Pattern((size_t{3} << 20) + 123, 1);
  testing::WriteBytes(dir.File("f.bin"), bytes);
  const auto f = ReadFile::OpenIfExists(dir.File("f.bin"));
  ASSERT_TRUE(f);
  const bool direct = ExpectRangesRead(*f, bytes);
  if (OnExt4(dir.File("f.bin"))) EXPECT_TRUE(direct) << "ext4 takes O_DIRECT";
}

// procfs refuses O_DIRECT (EINVAL at open; tmpfs takes it since Linux 6.6): the same bytes as a
// buffered read, and not direct.
TEST(ReadUncached, FileSystemsWithoutDirectIoFallBackToBuffered) {
  const auto f = ReadFile::OpenIfExists("/proc/version");  // a regular file of fixed text
  if (!f) GTEST_SKIP() << "no /proc";
  std::vector<uint8_t> buffered(4096);
  buffered.resize(static_cast<size_t>(f->ReadUpTo(0, buffered.size(), buffered.data())));
  ASSERT_GT(buffered.size(), 10u);
  LargeAllocation staging;
  uint64_t got = 0;
  bool direct = true;
  const uint8_t* p = f->ReadUncached(3, 4000, staging, got, &direct);
  EXPECT_FALSE(direct) << "procfs took O_DIRECT";
  ASSERT_EQ(got, buffered.size() - 3);
  EXPECT_EQ(std::memcmp(p, buffered.data() + 3, static_cast<size_t>(got)), 0);
}

// tmpfs (O_DIRECT taken or refused, by kernel version): the same bytes.
TEST(ReadUncached, HoldsTheBytesOnTmpfs) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  const std::string path = "/dev/shm/hzio_read_uncached_test_" + std::to_string(::getpid()) + ".bin";
  const std::vector<uint8_t> bytes = Pattern((size_t{2} << 20) + 5, 2);
  testing::WriteBytes(path, bytes);
  const auto f = ReadFile::OpenIfExists(path);
  ASSERT_TRUE(f);
  ExpectRangesRead(*f, bytes);
  std::filesystem::remove(path);
}

// A writer renames a new file over the path after the reader opened it: the direct reads still
// read the file the reader opened (its inode), as the buffered ones do.
TEST(ReadUncached, ReadsTheOpenedFileAfterAnotherIsRenamedOverIt) {
  testing::TempDir dir;
  const std::vector<uint8_t> old_bytes = Pattern(100000, 3), new_bytes = Pattern(100000, 4);
  testing::WriteBytes(dir.File("f.bin"), old_bytes);
  const auto f = ReadFile::OpenIfExists(dir.File("f.bin"));
  ASSERT_TRUE(f);
  testing::WriteBytes(dir.File("g.bin"), new_bytes);
  std::filesystem::rename(dir.File("g.bin"), dir.File("f.bin"));
  LargeAllocation staging;
  uint64_t got = 0;
  const uint8_t* p = f->ReadUncached(100, 50000, staging, got);
  ASSERT_EQ(got, 50000u);
  EXPECT_EQ(std::memcmp(p, old_bytes.data() + 100, 50000), 0);
}

}  // namespace
}  // namespace hzio
