#include "hzio/hz/block_layout.h"

#include <algorithm>
#include <bit>

#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"

namespace hzio {

BlockLayout::BlockLayout(Bitmask bitmask, int bits_per_block)
    : bitmask_(std::move(bitmask)), bpb_(bits_per_block) {
  Check(bpb_ >= 1 && bpb_ <= bitmask_.maxh(), ErrorCode::kInvalidArgument,
        "bitsperblock " + std::to_string(bpb_) + " must be in 1.." + std::to_string(bitmask_.maxh()));
  Check(bpb_ <= 30, ErrorCode::kUnsupported,
        "bitsperblock " + std::to_string(bpb_) + " is larger than 30 (blocks over 1 G samples)");
  Check(bitmask_.letter() == 'V', ErrorCode::kUnsupported,
        "bitmask '" + bitmask_.text() + "': the F (full-resolution blocks) variant is not supported");
  for (int h = 0; h <= maxh(); ++h) {
    table_once_.push_back(std::make_unique<std::once_flag>());
    inverse_once_.push_back(std::make_unique<std::once_flag>());
  }
  tables_.resize(static_cast<size_t>(maxh() + 1));
  inverse_tables_.resize(static_cast<size_t>(maxh() + 1));
}

int BlockLayout::BlockLevel(uint64_t block) const {
  return block == 0 ? bpb_ : bpb_ + static_cast<int>(std::bit_width(block));
}

uint64_t BlockLayout::FirstBlockOfLevel(int level) const {
  return level <= bpb_ ? 0 : uint64_t{1} << (level - bpb_ - 1);
}

Grid BlockLayout::BlockGrid(uint64_t block) const {
  const int n = dims();
  Grid g{Point(n), Point(n), Point(n)};
  if (block == 0) {
    g.stride = bitmask_.CumulativeStride(bpb_);
    for (int d = 0; d < n; ++d) g.count[d] = int64_t{1} << bitmask_.Count(d, 1, bpb_);
  } else {
    const int h = BlockLevel(block);
    g.stride = bitmask_.LevelStride(h);
    for (int d = 0; d < n; ++d) g.count[d] = int64_t{1} << bitmask_.Count(d, h - bpb_, h - 1);
    g.origin = PointFromHz(bitmask_, block << bpb_);
  }
  return g;
}

Grid BlockLayout::LevelGrid(int h) const {
  const int n = dims();
  Grid g{Point(n), Point(n, 1), Point(n, 1)};
  if (h == 0) {
    g.stride = bitmask_.pow2();
    return g;
  }
  g.origin = bitmask_.LevelOffset(h);
  g.stride = bitmask_.LevelStride(h);
  for (int d = 0; d < n; ++d) g.count[d] = bitmask_.pow2()[d] / g.stride[d];
  return g;
}

Grid BlockLayout::QueryGrid(const Box& box, LevelRange levels) const {
  Check(box.dims() == dims(), ErrorCode::kInvalidArgument,
        "box " + box.ToRangesString() + " has " + std::to_string(box.dims()) +
            " axes; the dataset has " + std::to_string(dims()));
  Check(levels.to >= 0 && levels.to <= maxh(), ErrorCode::kOutOfRange,
        "level " + std::to_string(levels.to) + " is outside 0.." + std::to_string(maxh()));
  Check(levels.from == 0 || levels.from == levels.to, ErrorCode::kInvalidArgument,
        "start level " + std::to_string(levels.from) + " must be 0 or equal to the end level " +
            std::to_string(levels.to));
  const Box clipped = box.Intersect(bitmask_.PaddedBox());
  const int n = dims();
  Grid lattice;  // the lattice the result samples come from
  if (levels.from == 0) {
    lattice = Grid{Point(n), bitmask_.CumulativeStride(levels.to), Point(n)};
  } else {
    lattice = LevelGrid(levels.to);
  }
  Grid g{Point(n), lattice.stride, Point(n)};
  for (int d = 0; d < n; ++d) {
    const int64_t s = lattice.stride[d], o = lattice.origin[d];
    const int64_t lo = clipped.p1[d], hi = clipped.p2[d] - 1;
    int64_t first = lo <= o ? o : o + ((lo - o + s - 1) / s) * s;
    int64_t last = hi < o ? o - s : o + ((hi - o) / s) * s;
    g.origin[d] = first;
    g.count[d] = last >= first ? (last - first) / s + 1 : 0;
  }
  Check(g.count.Product() > 0 && !clipped.Empty(), ErrorCode::kOutOfRange,
        "box " + box.ToRangesString() + " holds no sample at level " + std::to_string(levels.to));
  return g;
}

std::vector<uint64_t> BlockLayout::BlocksInRegion(const Box& region, LevelRange levels) const {
  std::vector<uint64_t> blocks;
  const Box clipped = region.Intersect(bitmask_.PaddedBox());
  if (clipped.Empty()) return blocks;
  const int n = dims();
  // Block 0 (levels 0..bpb): include it if any sample of the requested levels <= bpb is inside.
  if (levels.from <= bpb_) {
    const Grid lattice = levels.from == 0
                             ? Grid{Point(n), bitmask_.CumulativeStride(std::min(levels.to, bpb_)),
                                    bitmask_.pow2()}
                             : LevelGrid(levels.to);
    AxisCopy plan[kMaxDims];
    if (PlanGridCopy(BlockGrid(0), lattice, clipped, plan)) blocks.push_back(0);
  }
  // Levels above bpb: each level is a regular tiling of block-sized tiles; walk only the tiles
  // whose samples fall inside the region.
  for (int h = std::max(levels.from, bpb_ + 1); h <= levels.to; ++h) {
    const Grid level = LevelGrid(h);
    Point tile_count(n), tile_lo(n), tile_hi(n);
    bool empty = false;
    for (int d = 0; d < n; ++d) {
      const int64_t per_tile = int64_t{1} << bitmask_.Count(d, h - bpb_, h - 1);
      const int64_t s = level.stride[d], o = level.origin[d];
      const int64_t lo = clipped.p1[d] <= o ? 0 : (clipped.p1[d] - o + s - 1) / s;
      const int64_t hi = clipped.p2[d] - 1 < o ? -1 : std::min(level.count[d] - 1, (clipped.p2[d] - 1 - o) / s);
      if (hi < lo) { empty = true; break; }
      tile_lo[d] = lo / per_tile;
      tile_hi[d] = hi / per_tile;
      tile_count[d] = per_tile * s;  // tile extent in samples
    }
    if (empty) continue;
    const size_t level_start = blocks.size();
    Point t = tile_lo;
    for (;;) {
      Point origin(n);
      for (int d = 0; d < n; ++d) origin[d] = level.origin[d] + t[d] * tile_count[d];
      blocks.push_back(HzFromPoint(bitmask_, origin) >> bpb_);
      int d = 0;
      for (; d < n; ++d) {
        if (++t[d] <= tile_hi[d]) break;
        t[d] = tile_lo[d];
      }
      if (d == n) break;
    }
    std::sort(blocks.begin() + static_cast<std::ptrdiff_t>(level_start), blocks.end());
  }
  return blocks;
}

const std::vector<uint32_t>& BlockLayout::RowMajorToHz(int level) const {
  const size_t slot = static_cast<size_t>(level);
  std::call_once(*table_once_[slot], [&] {
    const int n = dims();
    const uint64_t block = FirstBlockOfLevel(level);
    const Grid g = BlockGrid(block);
    const auto row_major = [&](uint64_t i) {  // of in-block index i, from its point
      const Point p = PointFromHz(bitmask_, (block << bpb_) + i);
      int64_t r = 0;
      for (int d = n - 1; d >= 0; --d) r = r * g.count[d] + (p[d] - g.origin[d]) / g.stride[d];
      return r;
    };
    // Within one level, a sample's coordinates are a sum of independent contributions of its hz
    // bits (§3.1), and so is its row-major index: per level segment [i0, i0 + 2^k), k points
    // give every bit's contribution and each other index costs one addition (instead of a
    // deinterleave of maxh bits per sample). Block 0 holds levels 0..bpb: one segment each.
    std::vector<uint32_t> table(static_cast<size_t>(samples_per_block()));
    std::vector<int64_t> r;
    const auto fill_segment = [&](uint64_t i0, int k) {
      std::vector<int64_t> bit_step(static_cast<size_t>(k));
      r.assign(size_t{1} << k, 0);
      r[0] = row_major(i0);
      for (int b = 0; b < k; ++b) bit_step[static_cast<size_t>(b)] = row_major(i0 + (uint64_t{1} << b)) - r[0];
      table[static_cast<size_t>(r[0])] = static_cast<uint32_t>(i0);
      for (uint64_t j = 1; j < (uint64_t{1} << k); ++j) {
        r[j] = r[j & (j - 1)] + bit_step[static_cast<size_t>(std::countr_zero(j))];
        table[static_cast<size_t>(r[j])] = static_cast<uint32_t>(i0 + j);
      }
    };
    if (block == 0) {
      fill_segment(0, 0);  // level 0: hz 0
      for (int h = 1; h <= bpb_; ++h) fill_segment(uint64_t{1} << (h - 1), h - 1);
    } else {
      fill_segment(0, bpb_);
    }
    tables_[slot] = std::move(table);
  });
  return tables_[slot];
}

const std::vector<uint32_t>& BlockLayout::HzToRowMajor(int level) const {
  const size_t slot = static_cast<size_t>(level);
  std::call_once(*inverse_once_[slot], [&] {
    const std::vector<uint32_t>& to_hz = RowMajorToHz(level);
    std::vector<uint32_t> table(to_hz.size());
    for (size_t r = 0; r < to_hz.size(); ++r) table[to_hz[r]] = static_cast<uint32_t>(r);
    inverse_tables_[slot] = std::move(table);
  });
  return inverse_tables_[slot];
}

}  // namespace hzio
