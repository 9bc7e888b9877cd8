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

/// The scatter of every block of one shape into one destination shape, ready to apply to samples
/// of any size: the offsets of BlockScatterOffsets and, for samples of 4 and 8 bytes, the runs of
/// 16 bytes they hold. The finest levels of a 3-D array keep x-neighbours 1, 2 or 4 hz samples
/// apart (bitmasks V012...), so every group of the block's first few hz samples (up to
/// kMaxRunGroup) fills whole runs of consecutive destination samples. Those blocks are scattered
/// run by run, each run gathered from its group and written with one 16-byte store: a half or a
/// quarter of the stores, and no table read per sample (a float32 restart read places its blocks in
/// 30% less time at 2 and 4 ranks, bench/mpi/RESULTS.md). Other blocks and sample sizes are
/// scattered sample by sample.
class BlockScatter {
 public:
  static constexpr int kMaxRunGroup = 256;

  /// `offsets` as BlockScatterOffsets returns them (empty: a shape that cannot be scattered).
  explicit BlockScatter(std::vector<uint32_t> offsets);
  bool empty() const { return offsets_.empty(); }
  /// dst[offsets[h]] = src[h] for every hz sample h of the block, samples of `sample_bytes`.
  void Apply(uint8_t* dst, const uint8_t* src, int64_t sample_bytes) const;
  /// The memory its tables hold.
  int64_t table_bytes() const;
  /// Hz samples per group of runs for samples of `sample_bytes`; 0 when they go sample by sample.
  int run_group(int64_t sample_bytes) const;

 private:
  // The runs of one sample size (group 0: none).
  struct Runs {
    int group = 0;
    std::vector<uint8_t> sources;   // per run, the index within its group of each of its samples
    std::vector<uint32_t> offsets;  // per run, its destination from its group's first sample's
  };
  const Runs* RunsFor(int64_t sample_bytes) const;

  std::vector<uint32_t> offsets_;
  Runs runs4_, runs8_;
};

/// For a block of `level` (`layout.BlockLevel`) placed whole into a row-major array of
/// `dst_count` samples per axis, consecutive samples of its grid's axis d `dst_step[d]` apart
/// along that axis: offsets[h] = the array index of its in-block hz sample h, relative to the
/// index of its grid's first sample. Empty when an offset would not fit 32 bits.
std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count);

}  // namespace hzio
