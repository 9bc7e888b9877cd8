/// Placing hz-ordered units (block_reading.h) into the row-major result boxes of a parallel read:
/// scattered from hz order where a box takes the whole unit (BlockScatter: straight, or through a
/// buffer of the unit's rows that stays in the caches; RESULTS.md, "own units scattered from hz order
/// straight into the result", "blocks staged through their rows"), else permuted into a buffer of
/// the unit's grid and copied from there. Used for a rank's own units and for the units a rank takes
/// from an hz-ordered aggregation window. The scatter offsets are made once per (level, result
/// shape, hz/unit_scatter.h) and kept for the read. No MPI.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "hzio/hz/block_layout.h"
#include "hzio/hz/unit_scatter.h"
#include "hzio/util/box_copy.h"

namespace hzio::mpi {

class HzUnitPlacer {
 public:
  /// Units of `units` holding samples of levels 0..max_level (unit 0 of a coarser query: only
  /// its first 2^max_level).
  HzUnitPlacer(const BlockLayout& units, int max_level) : units_(units), max_level_(max_level) {}

  /// How a unit meets a result box (clipped: the box's part inside the dataset).
  enum class Fit { kNone, kWhole, kPart };
  struct Scatter {
    Fit fit = Fit::kNone;
    uint8_t* first = nullptr;               // kWhole: where the unit's first sample goes
    const BlockScatter* scatter = nullptr;  // kWhole: its hz samples' places, relative to `first`
  };
  /// kWhole only when the box takes every sample of the unit and the offsets fit (32 bits, and at
  /// most kMaxOffsetTableBytes of tables for the read); otherwise kPart where they meet. Safe to call
  /// from several threads at once, as Apply is (not Place).
  Scatter PlanScatter(uint64_t unit, int64_t sample_bytes, const Grid& result, uint8_t* data, const Box& clipped);
  /// The scatter PlanScatter planned (kWhole) of the unit's hz samples; `stream`: rows copied with
  /// streaming stores (BlockScatter::Apply).
  void Apply(const Scatter& s, const uint8_t* hz, int64_t sample_bytes, bool stream) const;

  /// Places the unit's hz samples into the box, whichever way it fits (nothing when it does not
  /// meet it). `stream`: rows copied with streaming stores (util/stream_copy.h).
  void Place(uint64_t unit, const uint8_t* hz, int64_t sample_bytes, const Grid& result, uint8_t* data,
             const Box& clipped, bool stream);

 private:
  static constexpr int64_t kMaxOffsetTableBytes = int64_t{64} << 20;
  const BlockLayout& units_;
  int max_level_;
  std::mutex scatters_mutex_;  // PlanScatter from several placing threads; a table, once made, stays
  std::map<std::vector<int64_t>, BlockScatter> scatters_;  // (level, steps, counts, group size) -> scatter
  int64_t offset_bytes_ = 0;
  std::vector<uint8_t> unit_buffer_;  // a unit permuted to its grid, when a box takes part of it
};

}  // namespace hzio::mpi
