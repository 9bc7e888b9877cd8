/// Scattering a hz-ordered block straight into a row-major array (idx-format.md §3.1, §4.1): the
/// destination offset of each of its samples, and the scatter. One pass over the samples instead
/// of a permutation into the block's own grid and a copy from there into the array.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/hz/block_layout.h"

namespace hzio {

/// dst[offsets[h]] = src[h] for h < n, samples of `sample_bytes` each.
void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sample_bytes);

/// The scatter of every block of one shape into one destination shape, ready to apply: the offsets
/// of BlockScatterOffsets and, for samples of 4 and 8 bytes, the runs of 16 bytes they hold. The
/// finest levels of a 3-D array keep x-neighbours 1, 2 or 4 hz samples apart (bitmasks V012...),
/// so every group of the block's first few hz samples (up to kMaxRunGroup) fills whole runs of
/// consecutive destination samples. Those blocks are scattered run by run, each run gathered from
/// its group and written with one 16-byte store: a half or a quarter of the stores, and no table
/// read per sample (a float32 restart read places its blocks in 30% less time at 2 and 4 ranks,
/// bench/mpi/RESULTS.md). Other blocks and sample sizes are scattered sample by sample.
class BlockScatter {
 public:
  static constexpr int kMaxRunGroup = 256;

  /// `offsets` as BlockScatterOffsets returns them (empty: a shape that cannot be scattered).
  BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes);
  bool empty() const { return offsets_.empty() && group_ == 0; }
  /// dst[offsets[h]] = src[h] for every hz sample h of the block.
  void Apply(uint8_t* dst, const uint8_t* src) const;
  /// The memory its tables hold.
  int64_t table_bytes() const;
  /// Hz samples per group of runs; 0 when the block is scattered sample by sample.
  int run_group() const { return group_; }

 private:
  std::vector<uint32_t> offsets_;
  int64_t sample_bytes_;
  int group_ = 0;
  std::vector<uint8_t> run_sources_;     // per run, the index within its group of each of its samples
  std::vector<uint32_t> run_offsets_;    // per run, its destination from its group's first sample's
  std::vector<uint32_t> group_offsets_;  // per group, its first sample's destination (offsets[g * group])
};

/// For a block of `level` (`layout.BlockLevel`) placed whole into a row-major array of
/// `dst_count` samples per axis, consecutive samples of its grid's axis d `dst_step[d]` apart
/// along that axis: offsets[h] = the array index of its in-block hz sample h, relative to the
/// index of its grid's first sample. Empty when an offset would not fit 32 bits.
std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count);

}  // namespace hzio
