// ReadFile::CachedBytes (storage/file.h): how much of a set of ranges the page cache holds, counted
// by page and clipped to the ranges and the file; nothing of a file evicted from the cache (where
// the file system lets it go: not tmpfs), all of it once read, and only the pages that were read.
#include "hzio/storage/file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "support/test_support.h"

namespace hzio {
namespace {

constexpr uint64_t kPage = 4096;

// Writes `size` bytes to `path`, flushed and dropped from the page cache; false if they stayed.
bool WriteEvicted(const std::string& path, uint64_t size) {
  testing::WriteBytes(path, std::vector<uint8_t>(size, 0x5A));
  EXPECT_EQ(std::filesystem::file_size(path), size) << path;
  return testing::EvictFileFromPageCache(path);
}

TEST(CachedBytes, CountsThePagesOfTheRangesInTheCache) {
  testing::TempDir dir;
  const std::string path = dir.File("f.bin");
  const uint64_t size = 64 * kPage + 100;  // a partial last page
  if (!WriteEvicted(path, size)) GTEST_SKIP() << "this file system keeps evicted pages (tmpfs?)";
  const std::shared_ptr<ReadFile> f = ReadFile::OpenIfExists(path);
  std::vector<uint8_t> buffer(size);
  f->ReadAt(8 * kPage, 4 * kPage, buffer.data());  // pages 8..11, perhaps more by read-ahead
  f->ReadAt(size - 100, 100, buffer.data());        // the last (partial) page
  EXPECT_EQ(f->CachedBytes({{8 * kPage, 4 * kPage}}), 4 * kPage);
  EXPECT_EQ(f->CachedBytes({{8 * kPage + 10, 20}}), 20u) << "clipped to the range within a page";
  EXPECT_EQ(f->CachedBytes({{8 * kPage, 2 * kPage}, {10 * kPage + 1, kPage - 1}}), 3 * kPage - 1) << "two ranges";
  EXPECT_EQ(f->CachedBytes({{size - 100, 1000}}), 100u) << "clipped to the file";
  EXPECT_EQ(f->CachedBytes({{size + kPage, kPage}}), 0u) << "past the end";
  EXPECT_EQ(f->CachedBytes({{8 * kPage, 0}}), 0u) << "an empty range";
  EXPECT_EQ(f->CachedBytes({}), 0u);
  EXPECT_LT(f->CachedBytes({{0, size}}), size) << "the whole file was not read";
  f->ReadAt(0, size, buffer.data());
  EXPECT_EQ(f->CachedBytes({{0, size}}), size);
  EXPECT_EQ(f->CachedBytes({{kPage / 2, kPage}, {40 * kPage, 3}}), kPage + 3) << "unaligned ranges";
}

TEST(CachedBytes, AnEmptyFileHasNothingCached) {
  testing::TempDir dir;
  const std::string path = dir.File("empty.bin");
  WriteEvicted(path, 0);
  EXPECT_EQ(ReadFile::OpenIfExists(path)->CachedBytes({{0, kPage}}), 0u);
}

}  // namespace
}  // namespace hzio
