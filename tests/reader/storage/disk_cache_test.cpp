// The persistent disk cache (storage/disk_cache.h): entries survive the object, damaged entries are
// detected and dropped, the size limit evicts least recently used entries, and processes sharing
// one folder lose nothing.
#include "hzio/storage/disk_cache.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/test_support.h"

namespace hzio {
namespace {

std::string Value(int i, size_t size) {
  std::string v(size, '\0');
  for (size_t k = 0; k < size; ++k) v[k] = static_cast<char>((i * 131 + k * 7) & 255);
  return v;
}

TEST(DiskCache, StoresAndFindsAcrossInstances) {
  testing::TempDir dir;
  {
    DiskCache cache(dir.File("c"), 1 << 30);
    EXPECT_FALSE(cache.Get("k1"));
    cache.Put("k1", Value(1, 1000));
    cache.Put("k2", "");
    EXPECT_EQ(*cache.Get("k1"), Value(1, 1000));
    EXPECT_EQ(*cache.Get("k2"), "");
    EXPECT_EQ(cache.stats().hits, 2u);
    EXPECT_EQ(cache.stats().misses, 1u);
  }
  DiskCache again(dir.File("c"), 1 << 30);  // a restart
  EXPECT_EQ(*again.Get("k1"), Value(1, 1000));
  again.Put("k1", "replaced");
  EXPECT_EQ(*again.Get("k1"), "replaced");
  again.Remove("k1");
  EXPECT_FALSE(again.Get("k1"));
}

TEST(DiskCache, DamagedEntriesAreMissesAndRemoved) {
  testing::TempDir dir;
  DiskCache cache(dir.File("c"), 1 << 30);
  const std::string value = Value(3, 5000);
  for (const char* damage : {"truncate", "flip", "empty", "extend"}) {
    cache.Put("k", value);
    const std::string path = cache.EntryPath("k");
    ASSERT_TRUE(std::filesystem::exists(path));
    const auto size = std::filesystem::file_size(path);
    if (std::string(damage) == "truncate") {
      std::filesystem::resize_file(path, size - 100);
    } else if (std::string(damage) == "flip") {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size - 10));
      f.put('\x5a');
    } else if (std::string(damage) == "empty") {
      std::filesystem::resize_file(path, 0);
    } else {
      std::ofstream(path, std::ios::app | std::ios::binary) << "trailing";
    }
    EXPECT_FALSE(cache.Get("k")) << damage;
    EXPECT_FALSE(std::filesystem::exists(path)) << damage;  // dropped, to be fetched anew
  }
  EXPECT_EQ(cache.stats().damaged, 4u);
}

TEST(DiskCache, KeysAreComparedNotOnlyHashed) {
  testing::TempDir dir;
  DiskCache cache(dir.File("c"), 1 << 30);
  cache.Put("a", "A");
  // Another key's entry copied over a's file (as a hash collision would place it) is no hit for a.
  cache.Put("b", "B");
  std::filesystem::copy_file(cache.EntryPath("b"), cache.EntryPath("a"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.Get("a"));
  EXPECT_EQ(*cache.Get("b"), "B");
}

TEST(DiskCache, EvictsLeastRecentlyUsedBeyondTheLimit) {
  testing::TempDir dir;
  DiskCache cache(dir.File("c"), 100000);
  for (int i = 0; i < 8; ++i) {
    cache.Put("k" + std::to_string(i), Value(i, 10000));
    // mtime order = use order (the test cannot wait a minute between uses).
    const timespec times[2] = {{0, UTIME_OMIT}, {1000000 + i, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, cache.EntryPath("k" + std::to_string(i)).c_str(), times, 0), 0);
  }
  // k0 used last.
  const timespec recent[2] = {{0, UTIME_OMIT}, {2000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, cache.EntryPath("k0").c_str(), recent, 0), 0);
  for (int i = 8; i < 12; ++i) cache.Put("k" + std::to_string(i), Value(i, 10000));  // over 100 kB
  EXPECT_GT(cache.stats().evicted, 0u);
  EXPECT_TRUE(cache.Get("k0"));   // recently used: kept
  EXPECT_FALSE(cache.Get("k1"));  // oldest: gone
  EXPECT_TRUE(cache.Get("k11"));
  int64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.File("c")))
    if (e.is_regular_file() && e.path().filename() != ".evict.lock") total += static_cast<int64_t>(e.file_size());
  EXPECT_LE(total, 100000);
  // Values over half the limit are not kept at all.
  cache.Put("huge", Value(0, 60000));
  EXPECT_FALSE(cache.Get("huge"));
}

TEST(DiskCache, StaleTemporaryFilesAreCleanedByEviction) {
  testing::TempDir dir;
  DiskCache cache(dir.File("c"), 1 << 30);
  cache.Put("k", "v");
  const std::string temp = cache.EntryPath("k") + ".tmp.999999.0";
  std::ofstream(temp) << "half written";
  const timespec old[2] = {{0, UTIME_OMIT}, {1000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, temp.c_str(), old, 0), 0);
  cache.Evict(1 << 30);
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_EQ(*cache.Get("k"), "v");
}

TEST(DiskCache, TwoProcessesFillingOneCacheLoseNothing) {
  testing::TempDir dir;
  const std::string folder = dir.File("shared");
  constexpr int kKeys = 200;
  pid_t children[2];
  for (int c = 0; c < 2; ++c) {
    children[c] = ::fork();
    ASSERT_GE(children[c], 0);
    if (children[c] == 0) {
      DiskCache cache(folder, 1 << 30);
      // Both write every key (the same values), in opposite orders, at the same time.
      for (int i = 0; i < kKeys; ++i) {
        const int k = c == 0 ? i : kKeys - 1 - i;
        cache.Put("key" + std::to_string(k), Value(k, 20000 + k));
      }
      ::_exit(cache.stats().store_failures == 0 ? 0 : 1);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  DiskCache cache(folder, 1 << 30);
  for (int k = 0; k < kKeys; ++k) {
    std::optional<std::string> v = cache.Get("key" + std::to_string(k));
    ASSERT_TRUE(v) << k;
    EXPECT_EQ(*v, Value(k, 20000 + k)) << k;
  }
  EXPECT_EQ(cache.stats().damaged, 0u);
  for (const auto& e : std::filesystem::recursive_directory_iterator(folder))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();  // no leftovers
}

TEST(DiskCache, UnwritableFolderNeverFailsAPut) {
  testing::TempDir dir;
  DiskCache cache(dir.File("c"), 1 << 30);
  const std::string sub = cache.EntryPath("k").substr(0, cache.EntryPath("k").rfind('/'));
  std::filesystem::remove_all(sub);
  std::ofstream(sub) << "not a folder";
  cache.Put("k", "v");  // no throw
  EXPECT_EQ(cache.stats().store_failures, 1u);
  EXPECT_FALSE(cache.Get("k"));
}

TEST(DiskCache, FolderThatIsAFileIsAnError) {
  testing::TempDir dir;
  std::ofstream(dir.File("file")) << "x";
  EXPECT_HZIO_ERROR(DiskCache(dir.File("file"), 1 << 20), ErrorCode::kIo, dir.File("file"));
}

}  // namespace
}  // namespace hzio
