#include "hzio/hz/block_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

std::vector<Point> GridPoints(const Grid& g) {
  std::vector<Point> pts;
  for (int64_t i = 0; i < g.NumSamples(); ++i) {
    Point p(g.dims());
    int64_t r = i;
    for (int d = 0; d < g.dims(); ++d) {
      p[d] = g.origin[d] + (r % g.count[d]) * g.stride[d];
      r /= g.count[d];
    }
    pts.push_back(p);
  }
  return pts;
}

// §4.1 example V0101, bpb 2.
TEST(BlockLayout, WorkedExampleV0101) {
  BlockLayout l(Bitmask::Parse("V0101"), 2);
  EXPECT_EQ(l.total_blocks(), 4u);
  EXPECT_EQ(l.BlockLevel(0), 2);
  EXPECT_EQ(l.BlockLevel(1), 3);
  EXPECT_EQ(l.BlockLevel(3), 4);
  EXPECT_EQ(l.FirstBlockOfLevel(0), 0u);  // levels 0..bpb: block 0
  EXPECT_EQ(l.FirstBlockOfLevel(2), 0u);
  EXPECT_EQ(l.FirstBlockOfLevel(3), 1u);
  EXPECT_EQ(l.FirstBlockOfLevel(4), 2u);
  EXPECT_EQ(l.BlockGrid(0), (Grid{Point{0, 0}, Point{2, 2}, Point{2, 2}}));
  EXPECT_EQ(l.BlockGrid(1), (Grid{Point{1, 0}, Point{2, 2}, Point{2, 2}}));
  EXPECT_EQ(l.BlockGrid(2), (Grid{Point{0, 1}, Point{1, 2}, Point{2, 2}}));
  EXPECT_EQ(l.BlockGrid(3), (Grid{Point{2, 1}, Point{1, 2}, Point{2, 2}}));
  // Block 1: hz order (1,0)(1,2)(3,0)(3,2), row-major (1,0)(3,0)(1,2)(3,2): table[rm] = hz index.
  EXPECT_EQ(l.RowMajorToHz(3), (std::vector<uint32_t>{0, 2, 1, 3}));
  EXPECT_EQ(l.HzToRowMajor(3), (std::vector<uint32_t>{0, 2, 1, 3}));  // a swap is its own inverse
  EXPECT_EQ(l.RowMajorToHz(2), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(l.RowMajorToHz(4), (std::vector<uint32_t>{0, 1, 2, 3}));
}

// §4.1 example V01201, bpb 2.
TEST(BlockLayout, WorkedExampleV01201) {
  BlockLayout l(Bitmask::Parse("V01201"), 2);
  EXPECT_EQ(l.BlockGrid(0), (Grid{Point{0, 0, 0}, Point{2, 2, 2}, Point{2, 2, 1}}));
  EXPECT_EQ(l.BlockGrid(1), (Grid{Point{0, 0, 1}, Point{2, 2, 2}, Point{2, 2, 1}}));
  EXPECT_EQ(l.BlockGrid(2), (Grid{Point{1, 0, 0}, Point{2, 2, 1}, Point{1, 2, 2}}));
  EXPECT_EQ(l.BlockGrid(3), (Grid{Point{3, 0, 0}, Point{2, 2, 1}, Point{1, 2, 2}}));
  const Point origins[] = {Point{0, 1, 0}, Point{0, 3, 0}, Point{2, 1, 0}, Point{2, 3, 0}};
  for (int b = 4; b < 8; ++b)
    EXPECT_EQ(l.BlockGrid(static_cast<uint64_t>(b)), (Grid{origins[b - 4], Point{1, 2, 1}, Point{2, 1, 2}}));
  EXPECT_EQ(l.RowMajorToHz(3), (std::vector<uint32_t>{0, 2, 1, 3}));
}

// Every block's grid holds exactly the samples whose hz falls in the block (all bitmasks).
TEST(BlockLayout, BlockGridsMatchHzRanges) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const int dims = 1 + static_cast<int>(rng() % 3);
    const int maxh = 2 + static_cast<int>(rng() % 9);
    std::string text = "V";
    for (int i = 0; i < maxh; ++i) text += static_cast<char>('0' + rng() % static_cast<unsigned>(dims));
    const int bpb = 1 + static_cast<int>(rng() % static_cast<unsigned>(maxh));
    BlockLayout l(Bitmask::Parse(text), bpb);
    for (uint64_t b = 0; b < l.total_blocks(); ++b) {
      Grid g = l.BlockGrid(b);
      ASSERT_EQ(g.NumSamples(), l.samples_per_block());
      const std::vector<uint32_t>& table = l.RowMajorToHz(l.BlockLevel(b));
      const std::vector<uint32_t>& inverse = l.HzToRowMajor(l.BlockLevel(b));
      ASSERT_EQ(inverse.size(), table.size());
      std::vector<Point> pts = GridPoints(g);
      for (size_t r = 0; r < pts.size(); ++r) {
        ASSERT_EQ(HzFromPoint(l.bitmask(), pts[r]), (b << bpb) + table[r]) << text << " bpb " << bpb << " block " << b;
        ASSERT_EQ(inverse[table[r]], r) << text << " bpb " << bpb << " block " << b;
      }
    }
  }
}

// §7.6 captured query grids on the 100x60 example.
TEST(BlockLayout, QueryGridsMatchOpenVisusCaptures) {
  BlockLayout l(Bitmask::Parse("V0101010101010"), 6);
  Box box{Point{10, 5}, Point{51, 31}};
  EXPECT_EQ(l.QueryGrid(box, {0, 9}), (Grid{Point{12, 8}, Point{4, 4}, Point{10, 6}}));
  EXPECT_EQ(l.QueryGrid(box, {0, 8}), (Grid{Point{16, 8}, Point{8, 4}, Point{5, 6}}));
  EXPECT_EQ(l.QueryGrid(box, {8, 8}), (Grid{Point{16, 12}, Point{8, 8}, Point{5, 3}}));
  EXPECT_EQ(l.QueryGrid(Box{Point{0, 0}, Point{100, 60}}, {0, 13}).count, (Point{100, 60}));
  EXPECT_THROW(l.QueryGrid(box, {3, 8}), Error);
  EXPECT_THROW(l.QueryGrid(box, {0, 14}), Error);
  // A box strictly between lattice points holds nothing at a coarse level.
  EXPECT_THROW(l.QueryGrid(Box{Point{1, 1}, Point{2, 2}}, {0, 2}), Error);
}

// The blocks a region needs are exactly those holding a sample of the levels inside it.
TEST(BlockLayout, BlocksInRegionMatchesBruteForce) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 60; ++trial) {
    const int dims = 1 + static_cast<int>(rng() % 3);
    const int maxh = 2 + static_cast<int>(rng() % 8);
    std::string text = "V";
    for (int i = 0; i < maxh; ++i) text += static_cast<char>('0' + rng() % static_cast<unsigned>(dims));
    const int bpb = 1 + static_cast<int>(rng() % static_cast<unsigned>(maxh));
    BlockLayout l(Bitmask::Parse(text), bpb);
    Box region{Point(l.dims()), Point(l.dims())};  // a random pattern may not use every axis
    for (int d = 0; d < l.dims(); ++d) {
      const int64_t n = l.bitmask().pow2()[d];
      region.p1[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
      region.p2[d] = region.p1[d] + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(n - region.p1[d]));
    }
    const int to = static_cast<int>(rng() % static_cast<unsigned>(maxh + 1));
    const bool only = rng() % 3 == 0 && to > 0;
    LevelRange levels{only ? to : 0, to};
    std::set<uint64_t> expected;
    for (uint64_t hz = 0; hz < (uint64_t{1} << maxh); ++hz) {
      const int h = HzLevel(hz);
      if (h < levels.from || h > levels.to) continue;
      if (region.Contains(PointFromHz(l.bitmask(), hz))) expected.insert(hz >> bpb);
    }
    std::vector<uint64_t> got = l.BlocksInRegion(region, levels);
    std::set<uint64_t> got_set(got.begin(), got.end());
    ASSERT_EQ(got_set.size(), got.size()) << "duplicates";
    ASSERT_EQ(got_set, expected) << text << " bpb " << bpb << " region " << region.ToRangesString();
  }
}

}  // namespace
}  // namespace hzio
