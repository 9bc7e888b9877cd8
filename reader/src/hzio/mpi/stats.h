/// What the parallel writer and reader report to callers: per-phase timings (this rank and the
/// maximum over ranks), bytes moved, and the bytes handled by every aggregator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "hzio/util/box.h"

namespace hzio::mpi {

/// Seconds per phase. Writer: restructure → hz → aggregate → io. Reader: io → aggregate → hz →
/// restructure (the same steps in reverse: read+decode, one-sided gets, layout, placement; a unit
/// placed from hz order straight into a result from an hz-ordered window, and every unit a rank
/// reads for itself, count as layout).
struct PhaseTimes {
  double restructure = 0, hz = 0, aggregate = 0, io = 0;
};

struct AggregatorBytes {
  int rank = 0;
  int64_t bytes = 0;
};

struct IoStats {
  PhaseTimes local;                             // this rank
  PhaseTimes max;                               // max over ranks (identical on every rank)
  double seconds = 0;                           // wall time of the collective call, max over ranks
  int64_t data_bytes = 0;                       // sample bytes of all ranks' boxes (global sum)
  int64_t file_bytes = 0;                       // bytes written to / read from block files (global sum)
  int64_t aggregators = 0;                      // aggregators used
  int64_t rounds = 1;                           // aggregation rounds (the memory budget's doing)
  bool overlapped = false;                      // writer: round r's files were written while round r+1
                                                // was encoded (WriteOptions::overlap_io); reader: round
                                                // r+1's files were read while round r was exchanged
                                                // (ReadOptions::overlap)
  int64_t releases = 0;                         // writer: points at which the fields encoded so far went
                                                // out while the rest was encoded (durable direct writes
                                                // of whole raw files, release_schedule.h)
  int64_t local_aggregator_bytes = 0;           // this rank's aggregator bytes (0 if not one)
  int64_t local_zero_copy_bytes = 0;            // writer: this rank's file bytes that went out with direct
                                                // writes straight from the aggregation window, with no
                                                // staging copy (write_rounds.cpp, BufferLead)
  int64_t local_direct_bytes = 0;               // reader: this rank's file bytes read past the page
                                                // cache (ReadOptions::direct_reads)
  int64_t local_own_bytes = 0;                  // reader: decoded bytes of the units this rank read
                                                // for itself, not through the window (owner_reads)
  bool hz_window = false;                       // reader: the window held units in hz order, each rank
                                                // placing its own from there (parallel_reader.h)
  int local_threads = 1;                        // threads this rank encoded with (writer) or placed its own
                                                // units with (reader): WriteOptions / ReadOptions::*_threads
  std::vector<AggregatorBytes> per_aggregator;  // every aggregator, filled on rank 0 only
  Point cell_size;                              // writer: the restructuring box
  std::string note;                             // how the call deviated from the asked mode, or ""
};

/// Fills the global fields of `s` from this rank's local ones with two reductions and one
/// gather (to rank 0): seconds/max phases, data/file byte sums, and per_aggregator from each
/// rank's local_aggregator_bytes (`rank_of(i)` names the rank of aggregator i). The first
/// reduction is also the agreement on `local_error` (see Agree()). Collective.
void FinishStats(MPI_Comm comm, IoStats& s, double elapsed, int64_t local_data_bytes, int64_t local_file_bytes,
                 const std::function<int(int64_t)>& rank_of, std::exception_ptr local_error = nullptr);

}  // namespace hzio::mpi
