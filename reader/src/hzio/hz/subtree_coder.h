/// HZ encoding and decoding of aligned subtrees (idx-format.md §3.1–3.2): moving the samples of a
/// row-major array to and from the hz runs of each level. A subtree is the aligned box spanned by
/// the last `bits` positions of the bitmask (of the level-H lattice when only levels 0..H are
/// wanted, §3.4); inside it the samples of each level form ONE contiguous hz run, so a subtree is
/// `bits` runs plus its root, a coarser sample.
///
/// Speed at any box size comes from the traversal: the subtree is cut into tiles of 2^k samples
/// (a sub-subtree of 32 KiB: 16x16x32 float32), and each tile contributes one contiguous
/// piece to each of its k finest levels' runs. So every source cache line and page is loaded once
/// per tile, however large the array (the former per-level sweep over the whole subtree re-read it
/// once per level and missed the TLB on every plane). The tiles' roots, 1/2^k of the samples, make
/// up the coarser levels. Where the array's rows are contiguous, Encode copies the rows it needs of
/// a slab of tiles side by side along x (up to 1 MiB; rows of whole cache lines) into a buffer of
/// their own first, and gathers each tile from there: the copy reads long rows at memory speed,
/// where a tile's own short rows, a power of two apart, cost a memory latency each and fell into the
/// same few cache sets (one 512³ float32 cell: 0.25 → 0.15 → 0.10 s in one pass, 0.20 → 0.11 s in
/// the writer's eight rounds). No MPI: the parallel writer encodes its cells with it, the benchmarks'
/// HZ floor its box (both read with hz/unit_scatter.h; Decode has no caller but its tests).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio {

/// Memory for samples of an hz run: `count` samples from `data` on, or, when `data` is null,
/// `count` samples to skip (not in this round, not needed, not available).
struct RunSpan {
  uint8_t* data = nullptr;
  int64_t count = 0;
};

/// Where the runs of a subtree go (encode) or come from (decode): called with (hz, count) for
/// `count` samples of one run in increasing hz from `hz` on; returns a span for its first n of
/// them (1 <= n <= count), and is called again for the rest. Decode asks for the rest of a run, a
/// run's calls in hz order; Encode hands out a run in pieces, in any order (slab by slab).
using RunResolver = std::function<RunSpan(uint64_t hz, int64_t count)>;

/// The hz addresses [begin, end) an encoding is asked for (a round of the parallel writer: the
/// files it holds). Encoding skips, without reading the source, every subtree and tile whose run
/// pieces all fall outside it.
struct HzRange {
  uint64_t begin = 0;
  uint64_t end = ~uint64_t{0};
  /// Whether [hz, hz + count) has an address in the range.
  bool Meets(uint64_t hz, int64_t count) const {
    return count > 0 && hz < end && hz + static_cast<uint64_t>(count) > begin;
  }
};

class SubtreeCoder {
 public:
  /// Subtrees of the lattice of levels 0..`level` (level = maxh: full resolution) spanning the
  /// last `bits` positions of the bitmask up to `level` (0 <= bits <= level). The array is row-major
  /// on that lattice with `strides` (in samples, per axis) and `sample_bytes` per sample.
  SubtreeCoder(const Bitmask& bitmask, int level, int bits, const Point& strides, int64_t sample_bytes);

  int bits() const { return bits_; }
  int level() const { return level_; }
  /// Lattice samples per axis of one subtree.
  const Point& extent() const { return extent_; }
  /// The largest `bits` whose subtree fits in `box_extent` lattice samples per axis.
  static int FittingBits(const Bitmask& bitmask, int level, const Point& box_extent);

  /// The hz run of level `level() - t` (0 <= t < bits) of the subtree with Z address `z` (at the
  /// level-`level()` lattice: the origin's full Z address >> (maxh - level())), and its root's hz.
  uint64_t RunStart(uint64_t z, int t) const;
  int64_t RunLength(int t) const { return int64_t{1} << (bits_ - t - 1); }
  uint64_t RootHz(uint64_t z) const;
  /// The Z address (at this lattice) of the subtree whose origin is `origin` (full-resolution
  /// coordinates, a multiple of the subtree's extent times the lattice stride).
  uint64_t SubtreeZ(const Point& origin) const;

  /// Reads the subtree at `origin` (full-resolution coordinates) from the array, where
  /// `at_origin` is its origin's sample, and hands every sample whose hz is in `range` to `sink`
  /// (called only for addresses in it, counts cut at its end). The samples outside it are not read:
  /// nor are the tiles whose pieces at every level miss it (no prefetch either), and a subtree with
  /// no run in it costs nothing.
  void Encode(const Point& origin, const uint8_t* at_origin, const RunResolver& sink, const HzRange& range = {}) const;
  /// Whether any run (or the root) of the subtree with Z address `z` has an address in `range`.
  bool Meets(uint64_t z, const HzRange& range) const;
  /// Writes the samples of the subtree at `origin` that lie inside `clip` (lattice samples relative
  /// to the origin, inside [0, extent)) into the array from `source`; skipped spans leave the
  /// array as it was. Runs of tiles wholly outside `clip` are asked for and skipped.
  void Decode(const Point& origin, uint8_t* at_origin, const Box& clip, const RunResolver& source) const;
  /// Calls `need(hz, count)` for the hz ranges Decode() with this clip reads (per level, pieces of
  /// consecutive tiles merged), in increasing hz within each level.
  void ForEachNeededRun(const Point& origin, const Box& clip, const std::function<void(uint64_t, int64_t)>& need) const;

 private:
  struct Cursor;
  /// One cursor per level t, at the subtree's run of that level.
  std::vector<Cursor> LevelCursors(uint64_t z) const;
  template <typename Wanted, typename Visit>
  void ForEachTile(const uint8_t* at_origin, bool for_write, Wanted&& wanted, Visit&& visit) const;
  bool TileInside(uint64_t tile, const Box& clip, bool* partial) const;
  int64_t CoarseOffset(uint64_t local_z) const;
  Point LocalPoint(uint64_t local_z) const;

  Bitmask bitmask_;
  int level_, bits_, tile_bits_;
  int64_t sample_bytes_;
  Point extent_, tile_extent_;
  std::vector<int64_t> contribution_;     // per Z bit: array offset (samples) of that bit
  std::vector<int64_t> tile_step_;        // per tile-index bit: base change when it is the one set
  std::vector<int> axis_, coord_bit_;     // per Z bit: the axis and lattice coordinate bit it carries
  std::vector<uint32_t> tile_table_;      // in-tile hz index -> array offset (samples)
  std::vector<uint16_t> tile_points_;     // in-tile hz index -> local coordinates (dims per entry)
  std::vector<int64_t> tile_rows_;        // byte offsets of the tile's rows along axis 0, ascending
  int64_t tile_row_bytes_ = 0;
  bool staged_ = false;                   // Encode gathers through a copy of a slab's rows
  std::vector<int> slab_bits_;            // the tile-index bits a slab's tiles differ in (axis 0, lowest first)
  uint64_t slab_mask_ = 0;                // those bits as a mask
  int64_t slab_row_bytes_ = 0;            // a slab row: the tiles' rows side by side
  std::vector<uint32_t> slab_table_;      // in-tile hz index -> offset (samples) in the copy, from its tile's first
  std::vector<uint32_t> row_levels_;      // per row (tile_rows_ order): bit t set when it holds samples of in-tile level t
};

}  // namespace hzio
