/// The plan of ParallelReader's two-phase read (parallel_reader.h), shared by its phases'
/// implementations (parallel_reader_two_phase.cpp, parallel_reader_own_units.cpp). Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/hz/block_layout.h"
#include "hzio/mpi/parallel_reader.h"

namespace hzio::mpi {

// The plan of a two-phase read, the same on every rank: the read units, the units of every box of
// this rank, the units this rank reads for itself, and the rounds (contiguous parts of the units
// several ranks need) under the memory budget.
struct ParallelReader::TwoPhasePlan {
  const BlockLayout* units = nullptr;
  std::vector<std::vector<uint64_t>> box_blocks;  // per clipped box: its units at levels 0..level
  std::vector<uint64_t> own;                      // units only this rank needs, read by it (ascending)
  bool any_own = false;                           // some rank reads units of its own
  std::vector<ReadPlan> rounds;                   // none when every needed unit is some rank's own
  std::vector<int64_t> sample_bytes;  // per field read
  int64_t round_bytes = 0;            // the largest round's aggregator bytes, every field together
  bool overlap = false;               // rounds alternate between two halves of the window
  bool stream = false;                // this rank places with streaming stores (ReadInto decides)
  bool hz_window = false;             // the window holds whole units in hz order, placed by HzUnitPlacer
  int level = 0;                      // the read's levels 0..level
  const std::vector<Box>* clipped = nullptr;  // this rank's boxes (clipped to the dataset box)

  int64_t WindowBytes() const { return overlap ? 2 * round_bytes : round_bytes; }
  // Where field k of a round starts in an aggregator's part of the window: the round's half, then
  // its range of every field, field after field.
  int64_t Offset(size_t round, int64_t agg, size_t k) const {
    const ReadPlan& plan = rounds[round];
    int64_t base = overlap ? static_cast<int64_t>(round % 2) * round_bytes : 0;
    for (size_t j = 0; j < k; ++j) base += plan.Range(agg).size() * sample_bytes[j];
    return base;
  }
};

}  // namespace hzio::mpi
