#include "engine/block_cache.h"

#include <gtest/gtest.h>

#include "hzio/util/error.h"

namespace hzio::server {
namespace {

DecodedBlock Block(uint64_t id, size_t bytes) {
  DecodedBlock b;
  b.id = id;
  b.bytes.assign(bytes, static_cast<uint8_t>(id));
  return b;
}

TEST(BlockCache, LoadsOnceThenHits) {
  BlockCache cache(1 << 20);
  int loads = 0;
  auto load = [&] {
    ++loads;
    return std::optional<DecodedBlock>(Block(7, 100));
  };
  auto a = cache.Get({0, 0, 0, 7}, load);
  auto b = cache.Get({0, 0, 0, 7}, load);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(cache.Stats().hits, 1);
  EXPECT_EQ(cache.Stats().misses, 1);
}

TEST(BlockCache, CachesAbsenceAndSeparatesKeys) {
  BlockCache cache(1 << 20);
  int loads = 0;
  auto absent = [&] {
    ++loads;
    return std::optional<DecodedBlock>();
  };
  EXPECT_EQ(cache.Get({0, 0, 0, 1}, absent), nullptr);
  EXPECT_EQ(cache.Get({0, 0, 0, 1}, absent), nullptr);
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(cache.Get({0, 0, 1, 1}, absent), nullptr);  // another timestep is another block
  EXPECT_EQ(cache.Get({1, 0, 0, 1}, absent), nullptr);  // another dataset
  EXPECT_EQ(loads, 3);
}

TEST(BlockCache, EvictsLeastRecentlyUsedWithinCapacity) {
  BlockCache cache(3 * (1000 + 128));
  auto loader = [](uint64_t id) { return [id] { return std::optional<DecodedBlock>(Block(id, 1000)); }; };
  for (uint64_t id = 0; id < 3; ++id) cache.Get({0, 0, 0, id}, loader(id));
  cache.Get({0, 0, 0, 0}, loader(0));  // 0 becomes most recent; 1 is now the oldest
  cache.Get({0, 0, 0, 3}, loader(3));  // evicts 1
  EXPECT_LE(cache.Stats().bytes, cache.Stats().capacity);
  int loads = 0;
  auto counting = [&] {
    ++loads;
    return std::optional<DecodedBlock>(Block(9, 1000));
  };
  cache.Get({0, 0, 0, 0}, counting);
  EXPECT_EQ(loads, 0);
  cache.Get({0, 0, 0, 1}, counting);
  EXPECT_EQ(loads, 1);
}

TEST(BlockCache, ErrorsAreNotCached) {
  BlockCache cache(1 << 20);
  EXPECT_THROW(cache.Get({0, 0, 0, 1}, []() -> std::optional<DecodedBlock> {
    throw Error(ErrorCode::kCorrupt, "bad block");
  }), Error);
  auto b = cache.Get({0, 0, 0, 1}, [] { return std::optional<DecodedBlock>(Block(1, 10)); });
  EXPECT_NE(b, nullptr);
}

TEST(BlockCache, BlocksLargerThanTheCacheAreServedButNotKept) {
  BlockCache cache(500);
  auto b = cache.Get({0, 0, 0, 1}, [] { return std::optional<DecodedBlock>(Block(1, 1000)); });
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->bytes.size(), 1000u);
  EXPECT_EQ(cache.Stats().entries, 0);
}

}  // namespace
}  // namespace hzio::server
