/// Scattering a hz-ordered block straight into a row-major array (idx-format.md §3.1, §4.1): the
/// destination offset of each of its samples, and the scatter: one pass over the samples, or, where
/// the block's rows are whole cache lines, a pass into a buffer of its rows that stays in the caches
/// and one copy of each row (BlockScatter).
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/hz/block_layout.h"

namespace hzio {

/// dst[offsets[h]] = src[h] for h < n, samples of `sample_bytes` each.
void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sample_bytes);

/// The scatter of every block of one shape into one destination shape, for samples of any size:
/// the offsets of BlockScatterOffsets, cut into groups of consecutive hz samples, 2 KiB of them
/// (GroupFor; fewer when a block has fewer), that are laid out alike, as every group of a block's
/// hz order is (the same axes vary inside each). Each group is scattered in the order of its
/// destinations: one destination offset read per group, and stores that fill the group's cache
/// lines one after the other instead of touching each of them once per pass of the hz order. A 512³
/// float32 read places its blocks in half the time of a sample-by-sample scatter in hz order, and a
/// level whose x-neighbours land two samples apart in a third (bench/mpi/RESULTS.md, "blocks
/// scattered group by group in destination order"); groups of 2 KiB place 512³ float32 8-10% faster
/// than groups of 256 samples, and the S3D case's float64 fields 3-4% faster than groups of 512
/// ("the reader's scatter groups"). Offsets without such groups, samples of more than
/// kMaxGroupedSampleBytes (each fills much of a cache line by itself: 24- and 88-byte samples were
/// placed 5-10% faster in hz order) and sample sizes without a kernel of their own
/// (sample_kernels.h) are scattered sample by sample.
///
/// Where the destinations form rows (runs of consecutive array samples, all of one length, whole
/// cache lines long: a block whose grid is dense along axis 0) and the block fits the caches, Apply
/// stages instead: it scatters the block sample by sample into a buffer of its rows, which stays in
/// the caches, then copies each row into the array whole (streaming stores when asked). Every
/// destination line is then written once, by one long copy, where the groups came back to each line
/// once per group that holds a piece of it (4 samples of a 16-sample line for the finest level of a
/// 4-rank 512³ float32 dataset); placing a 512³ float32 box takes two thirds of the time on one
/// thread (bench/mpi/RESULTS.md, "blocks staged through their rows").
class BlockScatter {
 public:
  static constexpr int64_t kGroupBytes = 2048;
  static constexpr int64_t kMaxGroupedSampleBytes = 16;
  /// Hz samples per group for samples of `sample_bytes`: kGroupBytes of them (of
  /// kMaxGroupedSampleBytes where larger: those are not scattered in groups anyway), a power of two.
  static int GroupFor(int64_t sample_bytes);

  /// Staged: rows of at least this many bytes (a cache line), blocks of at most kMaxStagedBytes
  /// (half the L2 cache of this machine's cores, shared by the ranks on a core).
  static constexpr int64_t kMinRowBytes = 64;
  static constexpr int64_t kMaxStagedBytes = int64_t{512} << 10;

  /// Any table of distinct offsets (empty: a shape that cannot be scattered); its groups sized for
  /// samples of `sample_bytes` (Apply places samples of any size all the same), its rows found by
  /// sorting the offsets (once; O(n log n)).
  BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes);
  /// The scatter of the blocks of `level` placed whole (BlockScatterOffsets), its rows taken from
  /// the block grid (a grid dense along axis 0 in the destination) without a sort: the parallel
  /// reader makes these tables at every read.
  static BlockScatter ForBlocks(const BlockLayout& layout, int level, const Point& dst_step, const Point& dst_count,
                                int64_t sample_bytes);
  bool empty() const { return offsets_.empty(); }
  /// dst[offsets[h]] = src[h] for every hz sample h of the block, samples of `sample_bytes`;
  /// `stream`: staged rows copied with streaming stores (util/stream_copy.h: StreamFence before
  /// another thread reads them).
  void Apply(uint8_t* dst, const uint8_t* src, int64_t sample_bytes, bool stream = false) const;
  /// The memory its tables hold.
  int64_t table_bytes() const;
  /// Hz samples per group; 0 when they go sample by sample.
  int group() const { return group_; }
  /// Samples per destination row; 0 when the destinations do not form rows (never staged).
  int64_t row() const { return row_; }
  /// Whether Apply stages samples of `sample_bytes`.
  bool Staged(int64_t sample_bytes) const;

 private:
  BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes, bool find_rows);
  void FindRows();
  std::vector<uint32_t> offsets_;
  int group_ = 0;
  std::vector<uint32_t> to_;    // a group's samples in destination order: each one's destination from the group's first's
  std::vector<uint16_t> from_;  // and its index within the group
  int64_t row_ = 0;                // staged: samples per row
  std::vector<uint32_t> in_rows_;  // staged: each hz sample's index in the buffer of rows (destination order)
  std::vector<uint32_t> row_at_;   // staged: each row's destination
};

/// For a block of `level` (`layout.BlockLevel`) placed whole into a row-major array of
/// `dst_count` samples per axis, consecutive samples of its grid's axis d `dst_step[d]` apart
/// along that axis: offsets[h] = the array index of its in-block hz sample h, relative to the
/// index of its grid's first sample. Empty when an offset would not fit 32 bits.
std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count);

}  // namespace hzio
