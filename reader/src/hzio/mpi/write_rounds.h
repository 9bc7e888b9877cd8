/// The rounds of a parallel write (parallel_writer.h): how a timestep's files are cut into rounds
/// under the memory budget, and the pipeline that runs each round's phases — fill the aggregators'
/// buffers where no rank writes (idx-format.md §4.9), HZ-encode the cells into them, exchange
/// (stores and one-sided puts between fences), write the round's block files (§4.5,
/// file_portions.h). With more than one round the aggregation window is cut in two halves and the
/// rounds alternate between them: the files of round r are written on an I/O thread from one half
/// while round r+1 is encoded and exchanged into the other, so a write costs about
/// max(hz + exchange, io) rather than their sum. Inside a round, durable direct writes of whole raw
/// files start before the encoding ends (release_schedule.h): the fields, and parts of the large
/// ones, are encoded one after the other, and after each group a fence makes it final in every
/// aggregator's buffer, whose files write it while the next group is encoded. Every rank takes part
/// in every round.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "hzio/format/block_files.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/hz/box_encoder.h"
#include "hzio/hz/imposed_grid.h"
#include "hzio/mpi/aggregation_window.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/mpi/release_schedule.h"
#include "hzio/mpi/restructure.h"
#include "hzio/mpi/stats.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {

class TimestepWrites;  // file_portions.h

/// The rounds of every timestep (the same plans for each) and whether they overlap.
struct WriteRounds {
  std::vector<FileAggregation> plans;
  bool overlap = false;     // two halves of the window, round r written while r+1 is encoded
  int64_t half_bytes = 0;   // each rank's part of the window per half, page-aligned
  int64_t lead = 0;         // where in its half an aggregator's buffer may start (BufferLead)
  int halves() const { return overlap ? 2 : 1; }
};

/// Whether rounds write their files while the next round is encoded. IoOverlap::kAuto: for durable
/// writes, where the I/O thread mostly waits on the disk, and where every rank has more than one CPU
/// to itself (`fewest_cpus`, CpusPerRank's least over the ranks), one its writes leave idle.
bool OverlapPays(IoOverlap option, bool sync, int fewest_cpus);

/// Pure (every rank computes the same): the rounds of a timestep under `budget` bytes of
/// aggregator buffer per rank, for `timesteps` timesteps. One round when the timestep's buffers
/// fit the budget; with `overlap_io` and more than one round in all (or a timestep cut into a few
/// because it is large enough for the overlap to pay), rounds of half the budget.
WriteRounds PlanWriteRounds(const IdxHeader& header, int64_t requested_aggregators, int ranks, int64_t budget,
                            size_t timesteps, bool overlap_io);

/// The cells the ranks encode (the same on every rank, but for this rank's `threads`, which change
/// only how it encodes): the restructuring grid, its encoder, the part of any cell the encoder
/// reads, and whether encoding every cell writes every stored sample.
struct CellPlan {
  CellPlan(const IdxHeader& header, const Point& cell_size, int ranks, int threads = 1);
  int threads;  // encoding threads of this rank (cells cut into subtrees for them: BoxEncoder::SplitFor)
  ImposedGrid grid;
  BoxEncoder encoder;
  Box touched;
  bool cells_cover_blocks = false;
};

class RoundPipeline {
 public:
  /// Collective: acquires the aggregation window for `rounds` (and the I/O thread if they overlap).
  RoundPipeline(MPI_Comm comm, const IdxHeader& header, const BlockFiles& files, const CellPlan& cells,
                const WriteRounds& rounds, const WriteOptions& options, IoStats& stats);
  /// Leaving on an agreed error: every rank finishes its writes in flight, then all meet, so the
  /// transaction (declared before the pipeline) removes the staged files when nobody writes any more.
  ~RoundPipeline();
  RoundPipeline(const RoundPipeline&) = delete;
  RoundPipeline& operator=(const RoundPipeline&) = delete;

  /// Collective: one round of timestep `time` — fill, encode, exchange, write (on the I/O thread
  /// when overlapping; durable whole raw files created first and written group of fields by group
  /// of fields as they are encoded). The last round of a timestep releases the cells as it encodes them.
  /// Throws the agreed error of the round (or of an earlier round's write) on every rank.
  void Run(const FileAggregation& plan, int64_t time, std::vector<RegularBox>& cells, bool last_round);
  /// Collective: every write done (with sync: on the disk) and its errors agreed.
  void Finish();
  /// The bytes of this rank's aggregator parts written so far.
  int64_t aggregator_bytes() const { return aggregator_bytes_; }
  /// After Finish: the bytes of its writes that went out straight from the window (no staging copy).
  int64_t zero_copy_bytes() const { return zero_copy_bytes_; }

 private:
  class PutStaging;
  // The phases of a round.
  void Fill(const FileAggregation& plan, int64_t my_agg, uint8_t* agg_buffer);
  ReleaseSchedule Schedule(const FileAggregation& plan) const;
  std::exception_ptr Encode(const FileAggregation& plan, const ReleaseSchedule& schedule,
                            std::vector<RegularBox>& cells, bool last_round, int64_t half_offset,
                            const std::vector<uint8_t*>& direct, TimestepWrites* writes, PutStaging& staging);
  void Exchange(PutStaging& staging, std::exception_ptr& error);
  std::shared_ptr<TimestepWrites> PrepareWrites(const FileAggregation& plan, const ReleaseSchedule& schedule,
                                                int64_t my_agg, const std::vector<const uint8_t*>& readable,
                                                int64_t time);
  void WriteFiles(std::shared_ptr<TimestepWrites> writes, int half);
  void WaitFor(int half);

  MPI_Comm comm_;
  const IdxHeader& header_;
  const BlockFiles& files_;
  const CellPlan& cells_;
  const WriteRounds& rounds_;
  const WriteOptions& options_;
  IoStats& stats_;
  const BlockLayout layout_;
  const int rank_, ranks_;
  const int exceptions_ = std::uncaught_exceptions();
  std::shared_ptr<AggregationWindow> window_;
  std::atomic<int64_t> zero_copy_bytes_{0};  // added to by the writes, so declared before the I/O thread
  // One I/O thread runs the writes in order and does no MPI; declared after the window, so its
  // destructor finishes the queued writes and joins before the window goes.
  std::optional<ThreadPool> io_thread_;
  std::optional<ThreadPool> encoders_;  // CellPlan::threads - 1 helpers of the encoding, if more than one
  std::future<void> in_flight_[2];  // the write of each half
  std::exception_ptr io_error_;     // of a write waited for, agreed at the next agreement
  int64_t lead_ = 0;  // where in its half an aggregator's buffer starts: rounds_.lead or 0
  int64_t round_index_ = 0;
  int64_t aggregator_bytes_ = 0;
};

}  // namespace hzio::mpi
