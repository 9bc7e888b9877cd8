// Tests of hz/unit_scatter.h: a block scattered from hz order lands where its grid places it in a
// row-major array, for every level of several layouts and destination steps, nothing else written;
// offsets beyond 32 bits are refused; every sample size is copied whole; BlockScatter, in groups,
// staged through rows or sample by sample, places what the sample-by-sample scatter places.
#include "hzio/hz/unit_scatter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "hzio/util/stream_copy.h"

namespace hzio {
namespace {

constexpr uint32_t kUntouched = 0xFFFFFFFFu;

struct LayoutCase {
  const char* bitmask;
  int bits_per_block;
};

TEST(UnitScatter, EveryLevelLandsWhereItsGridPlacesIt) {
  const LayoutCase cases[] = {{"V012012012", 4}, {"V0011012", 3}, {"V01010101", 5}, {"V0000000", 3}, {"V21021021", 6}};
  for (const auto& c : cases) {
    const Bitmask bitmask = Bitmask::Parse(c.bitmask);
    const BlockLayout layout(bitmask, c.bits_per_block);
    const int n = bitmask.dims();
    for (int level = c.bits_per_block; level <= layout.maxh(); ++level) {
      const Grid g = layout.BlockGrid(layout.FirstBlockOfLevel(level));
      for (const int64_t spread : {1, 2, 3}) {
        // A destination with room around the block: steps of 1 or `spread`, 2 samples of margin.
        Point step(n), count(n);
        for (int d = 0; d < n; ++d) {
          step[d] = (d + level) % 2 == 0 ? spread : 1;
          count[d] = (g.count[d] - 1) * step[d] + 1 + 4;
        }
        const std::vector<uint32_t> offsets = BlockScatterOffsets(layout, level, step, count);
        ASSERT_EQ(offsets.size(), static_cast<size_t>(layout.samples_per_block()));
        std::vector<uint32_t> hz(offsets.size());
        std::iota(hz.begin(), hz.end(), 0u);  // sample h holds its hz index
        std::vector<uint32_t> dst(static_cast<size_t>(count.Product()), kUntouched);
        int64_t first = 0, pitch = 1;
        for (int d = 0; d < n; ++d) {
          first += 2 * pitch;
          pitch *= count[d];
        }
        ScatterSamples(reinterpret_cast<uint8_t*>(dst.data() + first), reinterpret_cast<const uint8_t*>(hz.data()),
                       offsets.data(), static_cast<int64_t>(hz.size()), 4);
        // Expected: row-major sample r of the grid (coordinates k) at first + sum k[d] * step[d] * pitch[d].
        const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(level);
        std::vector<uint32_t> expected(dst.size(), kUntouched);
        for (int64_t r = 0; r < g.NumSamples(); ++r) {
          int64_t rest = r, at = first, p = 1;
          for (int d = 0; d < n; ++d) {
            at += (rest % g.count[d]) * step[d] * p;
            rest /= g.count[d];
            p *= count[d];
          }
          expected[static_cast<size_t>(at)] = to_hz[static_cast<size_t>(r)];
        }
        ASSERT_EQ(dst, expected) << c.bitmask << " level " << level << " spread " << spread;
      }
    }
  }
}

TEST(UnitScatter, OffsetsBeyond32BitsAreRefused) {
  const BlockLayout layout(Bitmask::Parse("V012012012"), 4);
  const Point step{1, 1, 1};
  // Level 9's block grid is 2 x 4 x 2: its last sample is 1 + 3 rows + 1 plane from its first.
  ASSERT_EQ(layout.BlockGrid(16).count, (Point{2, 4, 2}));
  EXPECT_FALSE(BlockScatterOffsets(layout, 9, step, Point{int64_t{1} << 16, int64_t{1} << 15, 4}).empty());  // 2^31 + ...
  EXPECT_TRUE(BlockScatterOffsets(layout, 9, step, Point{int64_t{1} << 17, int64_t{1} << 15, 4}).empty());   // 2^32 + ...
}

TEST(UnitScatter, EverySampleSizeIsCopiedWhole) {
  for (const int64_t sb : {1, 2, 3, 4, 6, 8, 12, 16, 24, 88}) {
    const std::vector<uint32_t> offsets{5, 0, 3, 1, 4, 2};
    std::vector<uint8_t> src(offsets.size() * static_cast<size_t>(sb));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<uint8_t> dst(src.size(), 0);
    ScatterSamples(dst.data(), src.data(), offsets.data(), static_cast<int64_t>(offsets.size()), sb);
    for (size_t h = 0; h < offsets.size(); ++h)
      ASSERT_EQ(std::memcmp(dst.data() + offsets[h] * sb, src.data() + h * sb, static_cast<size_t>(sb)), 0)
          << "sample bytes " << sb << ", sample " << h;
  }
}

// BlockScatter places every sample where ScatterSamples does (checked against the grid above), for
// every level, destination step and sample size (with a kernel of its own or not), and writes
// nothing else; every level of these layouts but block 0's goes in groups (all of a block's samples
// when it has fewer than GroupFor gives).
TEST(UnitScatter, BlockScatterPlacesWhatTheSampleScatterPlaces) {
  const LayoutCase cases[] = {{"V012012012", 4},  {"V0120120120120122", 10}, {"V0011012", 3},
                              {"V21021021", 6},   {"V01010101", 5},          {"V012012012012", 11}};
  for (const auto& c : cases) {
    const BlockLayout layout(Bitmask::Parse(c.bitmask), c.bits_per_block);
    const int n = layout.BlockGrid(0).dims();
    for (const int64_t sb : {1, 3, 4, 8, 16, 44}) {
      for (int level = c.bits_per_block; level <= layout.maxh(); ++level) {
        const Grid g = layout.BlockGrid(layout.FirstBlockOfLevel(level));
        for (const int64_t x_step : {1, 2}) {
          Point step(n), count(n);
          for (int d = 0; d < n; ++d) {
            step[d] = d == 0 ? x_step : 1;
            count[d] = (g.count[d] - 1) * step[d] + 1 + 3;  // 3 samples of margin past the block
          }
          std::vector<uint32_t> offsets = BlockScatterOffsets(layout, level, step, count);
          const BlockScatter scatter(offsets, sb);
          if (level > c.bits_per_block)  // block 0 holds several levels: its groups are not alike
            EXPECT_EQ(scatter.group(), std::min<int64_t>(BlockScatter::GroupFor(sb), layout.samples_per_block()))
                << c.bitmask << " level " << level << " sample bytes " << sb;
          std::vector<uint8_t> src(offsets.size() * static_cast<size_t>(sb));
          for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + i / 256 + 7);
          const size_t dst_bytes = static_cast<size_t>(count.Product() * sb);
          std::vector<uint8_t> expected(dst_bytes, 0xEE), dst(dst_bytes, 0xEE);
          ScatterSamples(expected.data(), src.data(), offsets.data(), static_cast<int64_t>(offsets.size()), sb);
          scatter.Apply(dst.data(), src.data(), sb);
          ASSERT_EQ(dst, expected) << c.bitmask << " level " << level << " sample bytes " << sb << " x step " << x_step;
        }
      }
    }
  }
}

// Offsets whose groups are not laid out alike go sample by sample, or in the largest groups that
// are; either way every sample lands where the table says.
TEST(UnitScatter, BlockScatterFallsBackWhereGroupsDiffer) {
  struct Case {
    std::vector<uint32_t> offsets;
    int group;
  };
  const Case cases[] = {
      {{5, 0, 3, 1, 4, 2}, 0},            // the first group's first sample is not its lowest destination
      {{4, 5, 0, 1, 6, 7, 2, 3}, 2},      // groups of 4 start above their lowest, of 2 are alike
      {{0, 2, 4, 6, 8, 10, 12, 14}, 8},   // one group of all
      {{7, 9, 8}, 0},                     // no power of two divides 3
  };
  for (const Case& c : cases) {
    const BlockScatter scatter(c.offsets, 4);
    EXPECT_EQ(scatter.group(), c.group);
    for (const int64_t sb : {4, 5}) {
      const uint32_t last = *std::max_element(c.offsets.begin(), c.offsets.end());
      std::vector<uint8_t> src(c.offsets.size() * static_cast<size_t>(sb));
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i + 1);
      std::vector<uint8_t> dst(static_cast<size_t>((last + 2) * sb), 0xEE);
      scatter.Apply(dst.data(), src.data(), sb);
      for (size_t h = 0; h < c.offsets.size(); ++h)
        ASSERT_EQ(std::memcmp(dst.data() + c.offsets[h] * sb, src.data() + h * sb, static_cast<size_t>(sb)), 0)
            << "group " << c.group << " sample " << h;
      EXPECT_EQ(dst.back(), 0xEE);
    }
  }
}

// Blocks whose destinations form rows of whole cache lines are staged through a buffer of their
// rows (with or without streaming stores) and land where the sample-by-sample scatter puts them,
// nothing else written, whether the rows were sorted out of the offsets or taken from the grid
// (ForBlocks); every level of these layouts dense along x in the destination is staged for some
// sample size, and nothing larger than kMaxStagedBytes is.
TEST(UnitScatter, BlockScatterStagesRowsOfWholeLines) {
  const LayoutCase cases[] = {{"V012012012012012", 12}, {"V0120120120120122", 10}, {"V01010101010101", 9},
                              {"V012012012012012012", 16}};
  int staged = 0;
  for (const auto& c : cases) {
    const BlockLayout layout(Bitmask::Parse(c.bitmask), c.bits_per_block);
    const int n = layout.BlockGrid(0).dims();
    for (int level = c.bits_per_block + 1; level <= layout.maxh(); ++level) {
      const Grid g = layout.BlockGrid(layout.FirstBlockOfLevel(level));
      Point step(n), count(n);
      for (int d = 0; d < n; ++d) {
        step[d] = g.stride[d];  // as in a full-resolution box: dense along x at the finest levels
        count[d] = (g.count[d] - 1) * step[d] + 1 + 5;
      }
      const std::vector<uint32_t> offsets = BlockScatterOffsets(layout, level, step, count);
      for (const int64_t sb : {1, 4, 8, 12, 16}) {
        const BlockScatter scatter(offsets, sb);
        ASSERT_EQ(scatter.row() > 0, step[0] == 1) << c.bitmask << " level " << level;
        if (scatter.row() > 0) EXPECT_EQ(scatter.row(), g.count[0]) << c.bitmask << " level " << level;
        const int64_t block_bytes = static_cast<int64_t>(offsets.size()) * sb;
        EXPECT_EQ(scatter.Staged(sb), scatter.row() * sb >= BlockScatter::kMinRowBytes &&
                                          block_bytes <= BlockScatter::kMaxStagedBytes);
        staged += scatter.Staged(sb) ? 1 : 0;
        std::vector<uint8_t> src(offsets.size() * static_cast<size_t>(sb));
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + i / 512 + 1);
        const size_t dst_bytes = static_cast<size_t>(count.Product() * sb + 64);
        std::vector<uint8_t> expected(dst_bytes, 0xEE);
        ScatterSamples(expected.data() + 3 * sb, src.data(), offsets.data(), static_cast<int64_t>(offsets.size()), sb);
        // The reader's tables: the same rows, taken from the grid instead of sorted out.
        const BlockScatter from_grid = BlockScatter::ForBlocks(layout, level, step, count, sb);
        EXPECT_EQ(from_grid.row(), scatter.row()) << c.bitmask << " level " << level;
        for (const BlockScatter* s : {&scatter, &from_grid})
          for (const bool stream : {false, true}) {
            std::vector<uint8_t> dst(dst_bytes, 0xEE);
            s->Apply(dst.data() + 3 * sb, src.data(), sb, stream);  // rows not aligned to cache lines
            StreamFence();
            ASSERT_EQ(dst, expected) << c.bitmask << " level " << level << " sample bytes " << sb << " stream " << stream
                                     << (s == &scatter ? " sorted" : " from the grid");
          }
      }
    }
  }
  EXPECT_GT(staged, 10);
}

// Rows: the destinations sorted fall into runs of consecutive samples, all of one length.
TEST(UnitScatter, RowsAreRunsOfOneLength) {
  EXPECT_EQ(BlockScatter({12, 0, 13, 1, 2, 14, 3, 15}, 4).row(), 4);
  EXPECT_EQ(BlockScatter({0, 1, 2, 3, 4, 5, 6, 7}, 4).row(), 8);  // one row: the rows abut
  EXPECT_EQ(BlockScatter({0, 1, 2, 10, 11, 20}, 4).row(), 0);     // 3, 2 and 1 long
  EXPECT_EQ(BlockScatter({0, 1, 2, 10, 11, 12, 20, 21}, 4).row(), 0);  // 8 is no multiple of 3
  EXPECT_EQ(BlockScatter({0, 2, 4, 6}, 4).row(), 0);
  const BlockScatter rows_of_four({12, 0, 13, 1, 2, 14, 3, 15}, 16);
  EXPECT_TRUE(rows_of_four.Staged(16));   // 64-byte rows
  EXPECT_FALSE(rows_of_four.Staged(8));   // 32-byte rows: the groups' way
}

TEST(UnitScatter, BlockScatterOfNoOffsetsIsEmpty) {
  EXPECT_TRUE(BlockScatter({}, 4).empty());
  EXPECT_FALSE(BlockScatter({1, 0}, 4).empty());
}

// Groups hold 2 KiB of samples: 512 float32, 256 float64, and 128 of 16 bytes and of anything
// larger; a power of two for any size.
TEST(UnitScatter, GroupsHoldTwoKibOfSamples) {
  EXPECT_EQ(BlockScatter::GroupFor(1), 2048);
  EXPECT_EQ(BlockScatter::GroupFor(3), 512);
  EXPECT_EQ(BlockScatter::GroupFor(4), 512);
  EXPECT_EQ(BlockScatter::GroupFor(8), 256);
  EXPECT_EQ(BlockScatter::GroupFor(16), 128);
  EXPECT_EQ(BlockScatter::GroupFor(88), 128);
}

}  // namespace
}  // namespace hzio
