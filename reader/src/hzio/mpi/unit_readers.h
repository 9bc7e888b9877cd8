/// Who reads each unit of a two-phase read (parallel_reader.h). A unit that the boxes of one rank
/// alone need is read by that rank, and each of its blocks placed into the rank's boxes as soon as
/// it is decoded, without passing through an aggregator's window: a restart read's own fine blocks
/// take one pass less over memory and no exchange. Units several ranks need go through the window.
/// One reduction of every rank's marks tells each rank every unit's reader, so every rank derives
/// the same split (SplitUnits, a pure function).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace hzio::mpi {

inline constexpr int32_t kNoReader = -1;     // no rank's boxes need the unit
inline constexpr int32_t kSharedUnit = -2;   // several ranks' boxes need it (or a rank asks to share)

/// The reduction's operator over marks: a rank marks a unit its boxes need with its rank (or
/// kSharedUnit), the others with kNoReader. Commutative and associative.
int32_t CombineReaders(int32_t a, int32_t b);

/// Collective: combines every rank's `marks` element-wise (CombineReaders), in place, in pieces of
/// at most kMaxTransferBytes.
void ReduceReaders(MPI_Comm comm, std::vector<int32_t>& marks);

struct UnitSplit {
  std::vector<uint64_t> shared;  // read two-phase, ascending
  std::vector<uint64_t> own;     // read by the rank asked about for itself, ascending
  bool any_own = false;          // some rank reads units for itself
};

/// Pure: splits the needed units (`readers[i]`, reduced, for units[i]; kNoReader ones are dropped)
/// for `rank` of `ranks`. Every rank reads as many units for itself (its first ones) as the rank
/// with the fewest: the shared rest is cut evenly over the aggregators, so every rank still reads
/// the same bytes, and a rank that alone needs a read (or a rank that needs nothing) leaves it
/// wholly to the aggregators. When some units are left to share, each rank reads units for itself
/// only if that is at least `min_own` units: a read in two parts (own units, then a window round)
/// costs a second trip to the disk and a synchronisation, which small reads do not always win back
/// (parallel_reader.h, ReadOptions::owner_reads_min_bytes).
UnitSplit SplitUnits(const std::vector<uint64_t>& units, const std::vector<int32_t>& readers, int ranks, int rank,
                     int64_t min_own = 0);

/// Pure: the mean bytes of the runs of units that one rank alone needs (`readers[i] >= 0`), a run
/// being consecutive unit numbers with the same reader: how long the reads of own units from the
/// files would be (units of `unit_bytes`, every field). 0 when no unit is one rank's.
int64_t MeanOwnRunBytes(const std::vector<uint64_t>& units, const std::vector<int32_t>& readers, int64_t unit_bytes);

}  // namespace hzio::mpi
