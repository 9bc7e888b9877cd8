/// How the HZ address space is cut into blocks (idx-format.md §4.1–4.2) and how box queries map
/// onto levels and blocks (§3.3–3.4): level grids, block grids, result grids, the blocks a query
/// touches, and the in-block hz ↔ row-major permutations used to scatter hz-ordered blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/hz/grid.h"

namespace hzio {

/// Start and end level of a box query: levels [from, to]. `from` is 0 (cumulative) or equal to
/// `to` (only that level's own samples), as OpenVisus allows (§3.4).
struct LevelRange {
  int from = 0, to = 0;
};

class BlockLayout {
 public:
  BlockLayout(Bitmask bitmask, int bits_per_block);

  const Bitmask& bitmask() const { return bitmask_; }
  int bits_per_block() const { return bpb_; }
  int maxh() const { return bitmask_.maxh(); }
  int dims() const { return bitmask_.dims(); }
  int64_t samples_per_block() const { return int64_t{1} << bpb_; }
  uint64_t total_blocks() const { return uint64_t{1} << (maxh() - bpb_); }

  /// Level of the samples in block b: bpb for block 0 (which holds levels 0..bpb).
  int BlockLevel(uint64_t block) const;
  /// The first block holding samples of `level` (block 0 for levels 0..bpb): every block of a
  /// level has its grid's shape (§4.1).
  uint64_t FirstBlockOfLevel(int level) const;
  /// The block's sample lattice (§4.1 table); its NumSamples() is always 2^bpb.
  Grid BlockGrid(uint64_t block) const;
  /// Level h's own samples (§3.3), clipped to nothing: the full lattice within the padded box.
  Grid LevelGrid(int h) const;
  /// Result grid of a box query (§3.4). `box` is absolute and exclusive; throws kOutOfRange if the
  /// grid is empty and kInvalidArgument for an unsupported level range.
  Grid QueryGrid(const Box& box, LevelRange levels) const;

  /// Ids of the blocks holding samples of `levels` inside `region` (exclusive box, already clipped
  /// as the caller wants), ascending. Work is proportional to the number of blocks returned.
  std::vector<uint64_t> BlocksInRegion(const Box& region, LevelRange levels) const;

  /// For blocks of `level` (bpb for block 0): table[r] = in-block hz index of the sample at
  /// row-major index r of the block grid. Built once per level, thread-safe.
  const std::vector<uint32_t>& RowMajorToHz(int level) const;
  /// The inverse: table[i] = row-major index in the block grid of the sample at in-block hz index
  /// i. For scattering a block in hz order (sequential reads of the hz-ordered source), which beats
  /// gathering through RowMajorToHz for samples of 16 bytes and more. Built once per level, thread-safe.
  const std::vector<uint32_t>& HzToRowMajor(int level) const;

 private:
  Bitmask bitmask_;
  int bpb_;
  mutable std::vector<std::unique_ptr<std::once_flag>> table_once_;
  mutable std::vector<std::vector<uint32_t>> tables_;
  mutable std::vector<std::unique_ptr<std::once_flag>> inverse_once_;
  mutable std::vector<std::vector<uint32_t>> inverse_tables_;
};

}  // namespace hzio
