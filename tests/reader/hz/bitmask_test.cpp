#include "hzio/hz/bitmask.h"

#include <gtest/gtest.h>

#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

// idx-format.md §2.1 table.
TEST(BitmaskGuess, MatchesOpenVisusTable) {
  EXPECT_EQ(Bitmask::Guess(Point{4, 4}).text(), "V0101");
  EXPECT_EQ(Bitmask::Guess(Point{4, 4, 2}).text(), "V01201");
  EXPECT_EQ(Bitmask::Guess(Point{16, 8, 4}).text(), "V012012010");
  EXPECT_EQ(Bitmask::Guess(Point{100, 60}).text(), "V0101010101010");
  EXPECT_EQ(Bitmask::Guess(Point{5, 1000}).text(), "V0101011111111");
  EXPECT_EQ(Bitmask::Guess(Point{50, 37, 13}).text(), "V0120120120120101");
  EXPECT_EQ(Bitmask::Guess(Point{300, 200, 100}).text(), "V012012012012012012012010");
  std::string big = "V";
  for (int i = 0; i < 13; ++i) big += "012";
  Bitmask b = Bitmask::Guess(Point{8192, 8192, 8192});
  EXPECT_EQ(b.text(), big);
  EXPECT_EQ(b.maxh(), 39);
}

TEST(Bitmask, ParsesAxesAndPaddedExtent) {
  Bitmask b = Bitmask::Parse("V0101010101010");
  EXPECT_EQ(b.maxh(), 13);
  EXPECT_EQ(b.dims(), 2);
  EXPECT_EQ(b.pow2(), (Point{128, 64}));
  EXPECT_EQ(b.axis(1), 0);
  EXPECT_EQ(b.axis(2), 1);
}

TEST(Bitmask, RejectsMalformedText) {
  for (const char* bad : {"", "V", "X012", "V01a", "v01"}) {
    try {
      Bitmask::Parse(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bitmask"), std::string::npos) << e.what();
    }
  }
}

// §3.5: the 4x4 V0101 table, every point.
TEST(HzOrder, WorkedExampleV0101) {
  Bitmask b = Bitmask::Parse("V0101");
  const int table[4][4] = {{0, 4, 1, 6}, {8, 9, 12, 13}, {2, 5, 3, 7}, {10, 11, 14, 15}};  // [y][x]
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(HzFromPoint(b, Point{x, y}), static_cast<uint64_t>(table[y][x])) << x << "," << y;
      EXPECT_EQ(PointFromHz(b, static_cast<uint64_t>(table[y][x])), (Point{x, y}));
    }
  EXPECT_EQ(b.Interleave(Point{2, 0}), 0b1000u);
  EXPECT_EQ(b.Interleave(Point{3, 3}), 0b1111u);
  // Level grids: L1 offset (2,0) stride (4,4); L2 (0,2) (2,4); L3 (1,0) (2,2); L4 (0,1) (1,2).
  EXPECT_EQ(b.LevelOffset(1), (Point{2, 0}));
  EXPECT_EQ(b.LevelStride(1), (Point{4, 4}));
  EXPECT_EQ(b.LevelOffset(2), (Point{0, 2}));
  EXPECT_EQ(b.LevelStride(2), (Point{2, 4}));
  EXPECT_EQ(b.LevelOffset(3), (Point{1, 0}));
  EXPECT_EQ(b.LevelStride(3), (Point{2, 2}));
  EXPECT_EQ(b.LevelOffset(4), (Point{0, 1}));
  EXPECT_EQ(b.LevelStride(4), (Point{1, 2}));
  // Cumulative strides D_h: (4,4) (2,4) (2,2) (1,2) (1,1).
  EXPECT_EQ(b.CumulativeStride(0), (Point{4, 4}));
  EXPECT_EQ(b.CumulativeStride(1), (Point{2, 4}));
  EXPECT_EQ(b.CumulativeStride(2), (Point{2, 2}));
  EXPECT_EQ(b.CumulativeStride(3), (Point{1, 2}));
  EXPECT_EQ(b.CumulativeStride(4), (Point{1, 1}));
}

// §3.6: the 4x4x2 V01201 table, every point.
TEST(HzOrder, WorkedExampleV01201) {
  Bitmask b = Bitmask::Parse("V01201");
  // [z][y][x] from the pictures (y up).
  const int z0[4][4] = {{0, 8, 1, 12}, {16, 17, 24, 25}, {2, 10, 3, 14}, {20, 21, 28, 29}};
  const int z1[4][4] = {{4, 9, 6, 13}, {18, 19, 26, 27}, {5, 11, 7, 15}, {22, 23, 30, 31}};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(HzFromPoint(b, Point{x, y, 0}), static_cast<uint64_t>(z0[y][x]));
      EXPECT_EQ(HzFromPoint(b, Point{x, y, 1}), static_cast<uint64_t>(z1[y][x]));
    }
  EXPECT_EQ(HzLevel(HzFromPoint(b, Point{3, 3, 1})), 5);
  EXPECT_EQ(HzLevel(HzFromPoint(b, Point{0, 0, 1})), 3);
  EXPECT_EQ(b.LevelOffset(3), (Point{0, 0, 1}));
  EXPECT_EQ(b.LevelStride(3), (Point{2, 2, 2}));
  EXPECT_EQ(b.LevelOffset(5), (Point{0, 1, 0}));
  EXPECT_EQ(b.LevelStride(5), (Point{1, 2, 1}));
}

}  // namespace
}  // namespace hzio
