// The decoded-block cache (access/block_cache.h) through CachedBlockSource over real classic
// sources: the byte bound and LRU order, absent blocks cached as such, one loader per key under
// concurrency, errors never cached, a new dataset version never served the old blocks.
#include "hzio/access/block_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "hzio/access/cached_block_source.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// Forwards to a real source, counting the keys it is asked for (and, with a delay, widening the
// window in which concurrent readers miss the same block).
class CountingSource : public BlockSource {
 public:
  CountingSource(std::shared_ptr<BlockSource> inner, int delay_ms = 0)
      : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()),
        inner_(std::move(inner)),
        delay_ms_(delay_ms) {}
  std::string Version() const override { return inner_->Version(); }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override {
    fetched += static_cast<int>(keys.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms_));
    inner_->Fetch(keys, sink);
  }
  std::atomic<int> fetched{0};

 private:
  std::shared_ptr<BlockSource> inner_;
  int delay_ms_;
};

std::shared_ptr<BlockSource> Rgb() { return OpenDataset(testing::GoldenPath("rgb_hz_raw/visus.idx"))->block_source(); }

std::vector<BlockCache::Value> Get(CachedBlockSource& source, std::vector<uint64_t> ids) {
  std::vector<BlockKey> keys;
  for (uint64_t id : ids) keys.push_back(BlockKey{0, 0, id});
  return source.Blocks(keys);
}

TEST(BlockCache, LoadsOnceThenHitsAndKeepsTheStoredBlock) {
  auto cache = std::make_shared<BlockCache>(1 << 20);
  auto counting = std::make_shared<CountingSource>(Rgb());
  CachedBlockSource source(counting, cache);
  const BlockCache::Value first = Get(source, {1})[0];
  ASSERT_TRUE(first);
  EXPECT_EQ(first->bytes, OpenDataset(testing::GoldenPath("rgb_hz_raw/visus.idx"))->ReadBlock(0, 0, 1)->bytes);
  EXPECT_EQ(Get(source, {1})[0], first);  // the same entry
  EXPECT_EQ(counting->fetched.load(), 1);
  const BlockCacheStats s = cache->Stats();
  EXPECT_EQ(s.hits, 1);
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.entries, 1);
  EXPECT_EQ(s.bytes, BlockCache::kEntryOverhead + 64 * 3);
}

TEST(BlockCache, AbsentBlocksAreCachedAsSuch) {
  auto cache = std::make_shared<BlockCache>(1 << 20);
  auto counting = std::make_shared<CountingSource>(Rgb());
  CachedBlockSource source(counting, cache);
  EXPECT_FALSE(Get(source, {53})[0]);  // outside the 100x60 box: never written
  EXPECT_FALSE(Get(source, {53})[0]);
  EXPECT_EQ(counting->fetched.load(), 1);
  EXPECT_EQ(cache->Stats().hits, 1);
  int absent = 0;
  const BlockKey key{0, 0, 53};
  source.Fetch({&key, 1}, [&](size_t, EncodedBlock&& b) { absent += b.present ? 0 : 1; });
  EXPECT_EQ(absent, 1);
}

TEST(BlockCache, StaysWithinItsBoundLeastRecentlyUsedFirst) {
  const int64_t entry = BlockCache::kEntryOverhead + 64 * 3;
  auto cache = std::make_shared<BlockCache>(3 * entry);
  CachedBlockSource source(Rgb(), cache);
  Get(source, {1, 2, 3});
  Get(source, {1});     // 1 is now the most recent: 2 goes first
  Get(source, {4, 5});  // evicts 2 and 3
  BlockCacheStats s = cache->Stats();
  EXPECT_EQ(s.entries, 3);
  EXPECT_LE(s.bytes, s.capacity);
  EXPECT_EQ(s.evictions, 2);
  const int64_t misses = s.misses;
  Get(source, {1, 4, 5});
  EXPECT_EQ(cache->Stats().misses, misses);  // all kept
  Get(source, {2});
  EXPECT_EQ(cache->Stats().misses, misses + 1);  // evicted
}

TEST(BlockCache, ConcurrentMissesOfOneBlockLoadItOnce) {
  auto cache = std::make_shared<BlockCache>(1 << 20);
  auto counting = std::make_shared<CountingSource>(Rgb(), 50);
  std::vector<BlockCache::Value> got(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      CachedBlockSource source(counting, cache);
      got[t] = Get(source, {2})[0];
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(counting->fetched.load(), 1);
  for (const BlockCache::Value& v : got) EXPECT_EQ(v, got[0]);
  EXPECT_EQ(cache->Stats().misses, 1);
  EXPECT_EQ(cache->Stats().hits, 7);
}

TEST(BlockCache, ErrorsAreNotCached) {
  testing::TempDir dir;
  const std::string idx = testing::CopyGolden(dir, "lz");
  {
    std::fstream f(dir.path() / "lz/visus/0000.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const std::streamoff size = f.tellg();
    f.seekp(size - 40);
    f.write(std::string(40, '\x55').data(), 40);  // garbage in the last payload
  }
  auto cache = std::make_shared<BlockCache>(1 << 20);
  auto counting = std::make_shared<CountingSource>(OpenDataset(idx)->block_source());
  CachedBlockSource source(counting, cache);
  // The block whose payload is last in the file: the garbage is in it.
  auto classic = std::dynamic_pointer_cast<ClassicBlockSource>(OpenDataset(idx)->block_source());
  auto table = classic->Table((dir.path() / "lz/visus/0000.bin").string());
  BlockKey key{0, 0, 0};
  for (uint64_t b = 0; b < classic->layout().total_blocks(); ++b)
    if (classic->Entry(*table, 0, b).offset > classic->Entry(*table, 0, key.block).offset) key.block = b;
  const auto nothing = [](size_t, EncodedBlock&&) {};
  EXPECT_HZIO_ERROR(source.Fetch({&key, 1}, nothing), ErrorCode::kCorrupt, "0000.bin: block");
  EXPECT_HZIO_ERROR(source.Fetch({&key, 1}, nothing), ErrorCode::kCorrupt, "0000.bin: block");
  EXPECT_EQ(counting->fetched.load(), 2);
  EXPECT_EQ(cache->Stats().entries, 0);
}

TEST(BlockCache, ANewVersionNeverHitsTheOldBlocks) {
  testing::TempDir dir;
  auto cache = std::make_shared<BlockCache>(1 << 20);
  testing::SyntheticLayout one;
  one.bits_per_block = 6;
  const std::string idx = testing::WriteSyntheticDataset(dir, 8, 8, 8, one);
  auto old_source = std::make_shared<CachedBlockSource>(OpenDataset(idx)->block_source(), cache);
  const BlockCache::Value before = Get(*old_source, {0})[0];
  ASSERT_TRUE(before);
  // A new version: the same dataset written again with 2 timesteps (a new .idx, new files).
  fs::remove_all(dir.path());
  fs::create_directories(dir.path());
  one.times = 2;
  testing::WriteSyntheticDataset(dir, 8, 8, 8, one);
  auto new_source = std::make_shared<CachedBlockSource>(OpenDataset(idx)->block_source(), cache);
  ASSERT_NE(new_source->Version(), old_source->Version());
  std::vector<BlockKey> t1{BlockKey{0, 1, 0}};
  const BlockCache::Value after = new_source->Blocks(t1)[0];
  ASSERT_TRUE(after);
  EXPECT_NE(after->bytes, before->bytes);  // timestep 1 holds other values
  EXPECT_NE(Get(*new_source, {0})[0], before);  // time 0 again: loaded for this version
  EXPECT_EQ(cache->Stats().misses, 3);
}

}  // namespace
}  // namespace hzio
