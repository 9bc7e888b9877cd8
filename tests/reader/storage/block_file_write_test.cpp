// Block-file writes of the parallel writer's aggregators (storage/block_file_write.h): direct
// (O_DIRECT through an aligned staging buffer, padded and cut back) and buffered whole files hold
// exactly the pieces, a file system that refuses O_DIRECT falls back to buffered writes, shared
// files are filled part by part in any order, and failures name the path.
#include "hzio/storage/block_file_write.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <numeric>

#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "support/test_support.h"

namespace hzio {
namespace {

using testing::ThrowsError;

std::vector<uint8_t> Pattern(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + i / 4093 + static_cast<size_t>(seed));
  return v;
}

// Pieces of odd sizes (a table, payloads across the 16 MiB staging chunk, a tail that is no
// multiple of 4 KiB), written every way: the file is their concatenation, byte for byte.
TEST(BlockFileWrite, WholeFilesHoldThePiecesDirectOrBuffered) {
  testing::TempDir dir;
  const std::vector<uint8_t> a = Pattern(1000, 1), b = Pattern((size_t{17} << 20) + 12345, 2), c = Pattern(4096, 3);
  std::vector<uint8_t> expected(a);
  expected.insert(expected.end(), b.begin(), b.end());
  expected.insert(expected.end(), c.begin(), c.end());
  const std::vector<ByteSpan> pieces{{a.data(), static_cast<int64_t>(a.size())},
                                     {b.data(), static_cast<int64_t>(b.size())},
                                     {c.data(), 0},
                                     {c.data(), static_cast<int64_t>(c.size())}};
  for (const DirectIo mode : {DirectIo::kAlways, DirectIo::kAuto, DirectIo::kNever})
    for (const bool sync : {false, true}) {
      const std::string path = dir.File("sub/dir/f.bin");
      testing::WriteBytes(dir.File("old.bin"), std::vector<uint8_t>(size_t{40} << 20, 0xFF));
      std::filesystem::create_directories(dir.File("sub/dir"));
      std::filesystem::copy_file(dir.File("old.bin"), path, std::filesystem::copy_options::overwrite_existing);
      const bool direct = WriteWholeFile(path, pieces, sync, mode);
      // /tmp is a disk file system here: kAlways and durable kAuto go around the page cache.
      if (mode == DirectIo::kNever || (mode == DirectIo::kAuto && !sync)) EXPECT_FALSE(direct);
      struct statfs fs {};
      if (mode != DirectIo::kNever && (sync || mode == DirectIo::kAlways) && ::statfs(path.c_str(), &fs) == 0 &&
          fs.f_type == EXT4_SUPER_MAGIC)
        EXPECT_TRUE(direct) << "ext4 takes O_DIRECT";
      EXPECT_EQ(std::filesystem::file_size(path), expected.size());
      ASSERT_TRUE(testing::ReadBytes(path) == expected) << "mode " << static_cast<int>(mode) << " sync " << sync;
    }
}

// A direct write of many chunks (more than the lanes that write them at once) from many pieces
// whose edges fall anywhere in the chunks, over an older and longer file: every byte in place,
// the padding cut off, and the same file when written again over itself.
TEST(BlockFileWrite, ChunksWrittenSideBySideHoldEveryByte) {
  testing::TempDir dir;
  const std::vector<uint8_t> all = Pattern((size_t{45} << 20) + 777, 7);
  std::vector<ByteSpan> pieces;
  for (size_t at = 0, k = 0; at < all.size(); ++k) {
    const size_t n = std::min(all.size() - at, size_t{1} + (k * 2654435761u) % (size_t{3} << 20));
    pieces.push_back(ByteSpan{all.data() + at, static_cast<int64_t>(n)});
    at += n;
  }
  const std::string path = dir.File("f.bin");
  testing::WriteBytes(path, std::vector<uint8_t>(size_t{60} << 20, 0xFF));
  for (int pass = 0; pass < 2; ++pass) {
    WriteWholeFile(path, pieces, true, DirectIo::kAlways);
    EXPECT_EQ(std::filesystem::file_size(path), all.size());
    ASSERT_TRUE(testing::ReadBytes(path) == all) << "pass " << pass;
  }
}

// A file that cannot grow as far as its pieces (RLIMIT_FSIZE here, as a full disk or quota would
// do): direct and buffered, durable or not, the write fails with kIo naming the file and the reason,
// never returning as if the file were whole.
TEST(BlockFileWrite, AFileThatCannotGrowFailsNamingIt) {
  testing::TempDir dir;
  const std::vector<uint8_t> all = Pattern((size_t{30} << 20) + 5, 10);
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write's error, not the signal
  struct rlimit limit = old;
  limit.rlim_cur = rlim_t{12} << 20;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  const std::string path = dir.File("f.bin");
  for (const DirectIo mode : {DirectIo::kAlways, DirectIo::kNever})
    for (const bool sync : {false, true})
      EXPECT_TRUE(ThrowsError([&] { WriteWholeFile(path, {{all.data(), static_cast<int64_t>(all.size())}}, sync, mode); },
                              ErrorCode::kIo, {path, "File too large"}))
          << "mode " << static_cast<int>(mode) << " sync " << sync;
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
}

// tmpfs takes no O_DIRECT (EINVAL at open or at the first write): the same bytes, buffered.
TEST(BlockFileWrite, FileSystemsWithoutDirectIoFallBackToBuffered) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  const std::string path = "/dev/shm/hzio_block_file_write_test_" + std::to_string(::getpid()) + ".bin";
  const std::vector<uint8_t> a = Pattern((size_t{5} << 20) + 3, 4);
  WriteWholeFile(path, {{a.data(), static_cast<int64_t>(a.size())}}, true, DirectIo::kAlways);
  EXPECT_TRUE(testing::ReadBytes(path) == a);
  std::filesystem::remove(path);
}

// Two writers fill disjoint parts of one file in either order; the last part's writer sets the
// size, cutting what a longer old file left.
TEST(BlockFileWrite, SharedFilesAreFilledPartByPart) {
  testing::TempDir dir;
  const std::string path = dir.File("shared.bin");
  testing::WriteBytes(path, std::vector<uint8_t>(50000, 0xAA));
  const std::vector<uint8_t> all = Pattern(30000, 5);
  const auto part = [&](int64_t from, int64_t to) { return PlacedSpan{from, ByteSpan{all.data() + from, to - from}}; };
  WriteIntoFile(path, {part(20000, 25000), part(25000, 30000)}, 30000, true);
  WriteIntoFile(path, {part(0, 40), part(40, 9000), part(9000, 20000)});
  EXPECT_TRUE(testing::ReadBytes(path) == all);
}

TEST(BlockFileWrite, FailuresNameThePath) {
  testing::TempDir dir;
  testing::WriteBytes(dir.File("plain"), {1, 2, 3});
  const std::vector<uint8_t> a = Pattern(100, 6);
  EXPECT_TRUE(ThrowsError([&] { WriteWholeFile(dir.File("plain/f.bin"), {{a.data(), 100}}); }, ErrorCode::kIo,
                          {"plain", "cannot create directory"}));
  std::filesystem::create_directories(dir.File("d"));
  EXPECT_TRUE(ThrowsError([&] { WriteWholeFile(dir.File("d"), {{a.data(), 100}}, true, DirectIo::kAlways); },
                          ErrorCode::kIo, {dir.File("d"), "cannot create"}));
  EXPECT_TRUE(ThrowsError([&] { WriteIntoFile(dir.File("d"), {PlacedSpan{0, {a.data(), 100}}}); }, ErrorCode::kIo,
                          {dir.File("d"), "cannot open for writing"}));
}

}  // namespace
}  // namespace hzio
