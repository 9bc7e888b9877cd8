#include "hzio/hz/hz_order.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace hzio {
namespace {

std::string RandomBitmask(std::mt19937_64& rng, int dims, int maxh) {
  std::string s = "V";
  for (int i = 0; i < maxh; ++i) s += static_cast<char>('0' + rng() % static_cast<unsigned>(dims));
  return s;
}

TEST(HzOrder, ZAndHzRoundTripAndLevelsPartitionTheLattice) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int dims = 1 + static_cast<int>(rng() % 3);
    const int maxh = 1 + static_cast<int>(rng() % 10);
    Bitmask b = Bitmask::Parse(RandomBitmask(rng, dims, maxh));
    std::set<uint64_t> seen;
    for (uint64_t hz = 0; hz < (uint64_t{1} << maxh); ++hz) {
      const uint64_t z = ZFromHz(hz, maxh);
      ASSERT_EQ(HzFromZ(z, maxh), hz);
      Point p = b.Deinterleave(z);
      ASSERT_EQ(b.Interleave(p), z);
      seen.insert(z);
      // A sample of level h lies on its level's lattice (§3.3).
      const int h = HzLevel(hz);
      if (h >= 1) {
        Point o = b.LevelOffset(h), s = b.LevelStride(h);
        for (int d = 0; d < b.dims(); ++d) ASSERT_EQ((p[d] - o[d]) % s[d], 0) << b.text() << " hz " << hz;
      }
    }
    EXPECT_EQ(seen.size(), size_t{1} << maxh);
  }
}

TEST(HzOrder, SixtyBitAddresses) {
  std::string text = "V";
  for (int i = 0; i < 20; ++i) text += "012";
  Bitmask b = Bitmask::Parse(text);
  Point far{(int64_t{1} << 20) - 1, (int64_t{1} << 20) - 3, 12345};
  uint64_t hz = HzFromPoint(b, far);
  EXPECT_EQ(PointFromHz(b, hz), far);
  EXPECT_EQ(HzLevel(HzFromPoint(b, Point{1, 1, 1})), 60);
}

}  // namespace
}  // namespace hzio
