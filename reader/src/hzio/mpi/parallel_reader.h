/// The collective IDX reader of hzio::mpi (issue 5). Each rank asks for any boxes (any rank count
/// and decomposition, unrelated to how the data was written) of one field and timestep at a level
/// H (levels 0..H, idx-format.md §3.4); every box comes back as its result grid.
///
/// Two-phase: the blocks the request touches (§4.2) are listed once, identically on every rank,
/// and cut into even contiguous ranges, one per aggregator — the same aggregator count at every
/// resolution, so a coarse read that touches few files still spreads their blocks over all
/// aggregators (self-balancing). Aggregators read their ranges with large reads (block_reading.h),
/// decode to row-major, and expose them in an MPI window; ranks fetch the slabs holding their
/// samples with one contiguous one-sided get per (block, aggregator) and place them locally.
/// Several fields can be read in one call. Memory is bounded by ReadOptions::memory_budget: a
/// read whose aggregator ranges would exceed it goes in rounds over contiguous parts of its block
/// list (PlanRounds), each read, exchanged and placed before the next reuses the window; the
/// results do not depend on the rounds. The units that one rank's boxes alone need (a restart
/// read's own fine blocks; everything for a single rank) skip the window: that rank reads them,
/// one pass per file over every field, and places each block into its boxes as soon as it is
/// decoded (memory: a block and a file piece) — every rank as many as the rank with the fewest, so
/// every rank still reads the same bytes and a rank that alone needs a read still has the
/// aggregators share its files (unit_readers.h); below ReadOptions::owner_reads_min_bytes per rank
/// a read that also has shared units goes wholly through the window, unless every rank finds its
/// own units in the page cache: then raw blocks larger than the ranks' boxes are cut into finer
/// units that are some rank's own, and a small shared rest is read by every rank that needs it
/// (no disk to spare, and the window's second pass over memory saved); or unless, from the disk,
/// a node runs more ranks than it has CPUs and the own units lie in long runs (the window's second
/// pass then costs CPU time the node lacks). Otherwise, when nearly all
/// of a read's units (raw ones cut finer where that helps) are one rank's but it goes through the
/// window (a cold restart of small boxes), the window holds them in hz order: the aggregators read
/// their contiguous file ranges straight into it, without permuting, and each rank scatters its
/// units from there into its boxes (hz_unit_placer.h; IoStats::hz_window). A read whose units are all
/// some rank's own (a single rank's) needs no window at all. Results beyond the last-level
/// cache are placed with streaming stores. One-phase (for comparison): every rank
/// reads its own boxes directly with hzio::core's serial engine. Errors follow the writer's
/// collective semantics.
///
/// A PIDX chunked dataset (format/pidx_chunking.h) is read one-phase in both modes: its blocks are
/// built from chunk records that lie in other blocks (access/pidx_chunk_source.h), which the
/// aggregators' row ranges of whole blocks cannot hold; IoStats::note says so. So is an ARCO
/// dataset (§4.12): one file per block, read whole by the rank whose box needs it (an absent file
/// is a missing block, as ARCO defines it).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hzio/access/arco_block_source.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset.h"
#include "hzio/access/pidx_chunk_source.h"
#include "hzio/format/block_files.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/access/aggregation_plan.h"
#include "hzio/mpi/aggregation_window.h"
#include "hzio/util/buffer_pool.h"
#include "hzio/util/thread_pool.h"
#include "hzio/mpi/stats.h"

namespace hzio::mpi {

class HzUnitPlacer;  // hz_unit_placer.h

enum class ReadMode { kTwoPhase, kOnePhase };

struct ReadOptions {
  ReadMode mode = ReadMode::kTwoPhase;
  int64_t aggregators = 0;              // 0 = one per rank (clamped to ranks and blocks)
  bool missing_files_are_errors = true; // a file that should hold requested blocks must exist
  WindowKind windows = WindowKind::kNodeShared;  // aggregator memory (aggregation_window.h)
  int64_t memory_budget = 0;  // bytes of aggregator window per rank for two-phase reads (the minimum
                              // over ranks counts); 0 = AggregationWindow::DefaultBudget (256 MiB). Larger
                              // reads go in rounds. A single rank needs no window.
  bool overlap = false;       // read round r+1's files on an I/O thread into one half of the window while round
                              // r is exchanged and placed (rounds of half the budget; a read of >= 16 MiB per
                              // aggregator cut into 4). Off by default: on this 2-core machine it was no faster
                              // (bench/mpi/RESULTS.md); any rank saying false turns it off for the read.
  bool owner_reads = true;    // two-phase: the units only one rank's boxes need are read by that rank and
                              // placed as decoded, not through the window (unit_readers.h). Any rank saying
                              // false, or fewer aggregators than ranks, turns it off for the read.
  int64_t owner_reads_min_bytes = int64_t{64} << 20;  // ... when every rank has at least this many bytes of
                              // them, or when they are the whole read (a single rank); smaller reads with a
                              // shared part go wholly through the window (faster from the disk here,
                              // bench/mpi/RESULTS.md) unless every rank finds its own units in the page cache
                              // (then, for raw fields, with blocks cut finer where that makes units own), or
                              // a node runs more ranks than it has CPUs and the own units lie in runs of
                              // 768 KiB and more on average (then the window's second pass over memory costs
                              // more CPU time than the reads of own units cost the disk)
  DirectReads direct_reads = DirectReads::kWhenUncached;  // two-phase: whether this rank reads its files' pieces
                              // past the page cache (O_DIRECT into huge-page staging, buffered where the file
                              // system refuses it). By default per file, when most of what it reads there is not
                              // cached: a cold restart then gets the disk's speed without the CPU's copy out of
                              // the cache (bench/mpi/RESULTS.md, "direct reads from huge pages"); this rank only.
  int placing_threads = 0;    // two-phase: threads that place this rank's own units into its boxes (the scatter
                              // from hz order is most of a restart's CPU time). 0 = the CPUs this rank has to
                              // itself (node_share.h: 1 where each rank is bound to a core, as Open MPI binds up
                              // to 2 ranks by default); this rank only. At most kMaxThreadsPerRank (node_share.h).
};

/// One box's answer: the samples of `grid` (row-major over grid.count), the field's dtype.
struct BoxData {
  Grid grid;
  std::vector<uint8_t> bytes;
};

/// The blocks a collective request needs, in ascending id order, and how they are spread over the
/// aggregators. The decoded blocks, concatenated (row-major inside each block), are cut into even
/// sample ranges snapped to slabs of the block's slowest axis, so every aggregator holds the same
/// bytes (within one slab) even when a coarse read needs fewer blocks than there are aggregators.
/// Blocks kept in hz order are cut only between blocks (a slab is then the whole block).
struct ReadPlan {
  std::vector<uint64_t> blocks;
  std::vector<int64_t> slab;     // per block: samples in one slab of its slowest axis (or all of them)
  int64_t block_samples = 1;
  int64_t aggregators = 1;

  int64_t total() const { return static_cast<int64_t>(blocks.size()) * block_samples; }
  /// The first slab boundary at or after sample offset x of the concatenation.
  int64_t SnapUp(int64_t x) const;
  /// Samples [begin, end) of the concatenation held by an aggregator.
  Span Range(int64_t aggregator) const;
  /// The most samples any aggregator holds.
  int64_t MaxAggregatorSamples() const;
  /// The aggregator holding the slab that starts at sample offset x.
  int64_t AggregatorOfSlab(int64_t x) const { return EvenSplitOwner(total(), aggregators, x); }
};

/// Pure: the plan for a request whose boxes lie in `region` at levels 0..level, restricted to
/// blocks that hold samples of the dataset box, over `aggregators` (clamped to >= 1 and to the
/// number of slabs). Used by the reader and by balance tests.
ReadPlan PlanRegionRead(const IdxHeader& header, const BlockLayout& layout, const Box& region, int level,
                        int64_t aggregators);

/// Builds a plan for an explicit block list (ascending). With `whole_units`, ranges are snapped to
/// whole blocks (an hz-ordered window: a block's samples are not rows there).
ReadPlan MakeReadPlan(const BlockLayout& layout, std::vector<uint64_t> blocks, int64_t aggregators,
                      bool whole_units = false);

/// Pure: the rounds of a read of `blocks` (ascending) under a memory budget: plans of contiguous,
/// even parts of the list such that an aggregator holds about `budget_bytes` or less
/// (`sample_bytes`: of all fields read together); one block per round at least. One plan when
/// the whole read fits.
std::vector<ReadPlan> PlanRounds(const BlockLayout& layout, std::vector<uint64_t> blocks, int64_t aggregators,
                                 int64_t sample_bytes, int64_t budget_bytes, bool whole_units = false);

class ParallelReader {
 public:
  /// Collective: rank 0 reads the .idx and broadcasts it; every rank parses the same text. A
  /// missing or malformed header raises the same Error everywhere.
  ParallelReader(MPI_Comm comm, std::string idx_path, ReadOptions options = {});

  const IdxHeader& header() const { return header_; }
  const BlockLayout& layout() const { return *layout_; }

  /// Collective. `level` < 0 means maxh. Boxes are clipped to the dataset box (a box that misses
  /// it is kOutOfRange). Returns one BoxData per box, in order.
  std::vector<BoxData> Read(int field, int64_t time, int level, const std::vector<Box>& boxes);
  /// Collective, like Read(), for several fields of the same boxes in one read (one plan, one pass
  /// over each file, as a restart reads its variables): result[k][i] is fields[k] of boxes[i].
  std::vector<std::vector<BoxData>> Read(const std::vector<int>& fields, int64_t time, int level,
                                         const std::vector<Box>& boxes);

  /// Whether `box` (clipped to the dataset box) holds any sample of levels 0..level (< 0: maxh).
  /// A rank's piece of a decomposition often holds none at coarse levels; it should then ask for
  /// nothing rather than for that box (which is kOutOfRange, as for the serial reader).
  bool HasSamples(const Box& box, int level) const;

  /// The result grid of `box` (clipped to the dataset box) at levels 0..level (< 0: maxh).
  Grid ResultGrid(const Box& box, int level) const;

  /// Collective, like Read(), but into caller memory: out[i] must hold exactly the bytes of
  /// ResultGrid(boxes[i], level) (e.g. a simulation's own arrays on restart). No allocation of
  /// results, so a restart reads straight into place.
  void ReadInto(int field, int64_t time, int level, const std::vector<Box>& boxes, const std::vector<uint8_t*>& out);
  /// Collective: several fields of the same boxes in one read (one plan, one window, one
  /// agreement), as a restart reads all its variables; out[k][i] receives fields[k] of boxes[i].
  void ReadInto(const std::vector<int>& fields, int64_t time, int level, const std::vector<Box>& boxes,
                const std::vector<std::vector<uint8_t*>>& out);

  /// Statistics of the last Read(); per_aggregator is filled on rank 0.
  const IoStats& stats() const { return stats_; }

 private:
  struct Target {
    Grid grid;
    uint8_t* data;
  };
  struct ReadIntoWindow {
    int64_t file_bytes = 0, direct_bytes = 0;
    double layout_seconds = 0;
  };
  // What every rank of a two-phase read agreed on (ReadInto's one agreement).
  struct TwoPhaseChoices {
    int64_t budget = 0;           // window bytes per rank (the smallest of any rank)
    bool overlap = false;         // rounds overlapped (no rank said no)
    bool owner_reads = true;      // units one rank needs read by it (no rank said no)
    int64_t owner_min_bytes = 0;  // ... from this many bytes per rank (the largest of any rank)
    bool cpus_short = false;      // some node runs more ranks than it has CPUs
    bool stream = false;          // this rank places with streaming stores (its own choice)
  };
  struct TwoPhasePlan;  // the plan of a two-phase read, the same on every rank (the .cpp)
  struct Fetch;         // a range of slabs a rank takes from an aggregator (the .cpp)
  struct RoundRead;     // what an aggregator's read of a round's files did (the .cpp)
  // Both return this rank's error, agreed on by the caller with the statistics. The two-phase
  // read is its phases in order: PlanTwoPhase, ReadOwnUnits, then per round ReadRoundFiles,
  // PlanFetches, ExchangeRound and PlaceFetched. Results are placed with streaming stores when
  // `stream` (ReadInto decides). `error` carries this rank's error from phase to phase and round
  // to round: a failed rank does no more work but takes part in every collective step.
  std::exception_ptr ReadTwoPhase(const std::vector<int>& fields, int64_t time, int level, const Box& region,
                                  const std::vector<Box>& clipped, std::vector<std::vector<Target>>& results,
                                  const TwoPhaseChoices& choices);
  // Phase 1 (collective): the units somebody needs and who reads them (a reduction of marks,
  // unit_readers.h), the rounds of the shared ones under `budget` (halves of it when overlapped).
  TwoPhasePlan PlanTwoPhase(const std::vector<int>& fields, int64_t time, int level, const Box& region,
                            const std::vector<Box>& clipped, const TwoPhaseChoices& choices);
  // Phase 2: an aggregator reads and decodes its ranges of a round's files into its part of the
  // window (`window`: its base). No MPI: runs on the I/O thread when rounds are overlapped. Throws.
  RoundRead ReadRoundFiles(const TwoPhasePlan& plan, size_t round, uint8_t* window, const std::vector<int>& fields,
                           int64_t time, int level);
  // Phase 3a: the ranges of a round's window this rank needs, per (field, box, unit, aggregator).
  std::vector<Fetch> PlanFetches(const TwoPhasePlan& plan, size_t round, const AggregationWindow& window,
                                 const std::vector<Box>& clipped, const std::vector<std::vector<Target>>& results,
                                 std::exception_ptr& error) const;
  // Phase 3b (collective): one epoch of the window: gets into the returned arena, the ranges this
  // rank can load directly placed inside it.
  PooledBuffer ExchangeRound(const TwoPhasePlan& plan, const std::vector<Fetch>& fetches, AggregationWindow& window,
                             std::vector<std::vector<Target>>& results, HzUnitPlacer& placer, std::exception_ptr& error);
  // Phase 4: the ranges got into the arena placed into the result boxes.
  void PlaceFetched(const TwoPhasePlan& plan, const std::vector<Fetch>& fetches, const PooledBuffer& arena,
                    std::vector<std::vector<Target>>& results, HzUnitPlacer& placer, const std::exception_ptr& error);
  void Place(const TwoPhasePlan& plan, const Fetch& f, const uint8_t* src, std::vector<std::vector<Target>>& results,
             HzUnitPlacer& placer) const;
  // The units only this rank needs (TwoPhasePlan::own), read by this rank and each placed as it is
  // decoded (parallel_reader_own_units.cpp). Throws.
  void ReadOwnUnits(const TwoPhasePlan& plan, const std::vector<int>& fields, int64_t time, int level,
                    const std::vector<Box>& clipped, std::vector<std::vector<Target>>& results, HzUnitPlacer& placer);
  std::exception_ptr ReadOnePhase(const std::vector<int>& fields, int64_t time, int level,
                                  const std::vector<Box>& clipped, std::vector<std::vector<Target>>& results);
  void ReadBoxesOnePhase(int field, int64_t time, int level, const std::vector<Box>& clipped,
                         std::vector<Target>& targets);
  // An aggregator reads and decodes its sample range of every field of a round into its part of the window.
  ReadIntoWindow ReadAggregatorRange(const TwoPhasePlan& plan, size_t round, int64_t agg, const std::vector<int>& fields,
                                     int64_t time, int level, uint8_t* window);
  // The block layout a two-phase read plans with (see the .cpp), the same on every rank, and its
  // blocks holding samples of `region` at levels 0..level.
  const BlockLayout& PlanLayout(const Box& region, int level, int64_t aggregators, std::vector<uint64_t>& region_blocks);
  // Collective: whether every rank finds (nearly) all of the files holding its units `mine` in the
  // page cache (asked without reading anything, block_reading.h).
  bool FilesCached(int64_t time, const BlockLayout& units, const std::vector<uint64_t>& mine);
  // The dataset's layout with blocks of 2^bits samples (made once, kept with its tables).
  const BlockLayout& UnitLayout(int bits);
  // The units a two-phase read is planned with, the units of every box of this rank and who reads
  // each unit (reduced, unit_readers.h).
  struct UnitMarks {
    const BlockLayout* units;
    std::vector<uint64_t> region_blocks;            // the region's units at levels 0..level
    std::vector<std::vector<uint64_t>> box_blocks;  // per clipped box
    std::vector<int32_t> readers;                   // per region unit
  };
  // Collective: this rank's boxes mark their units of `units` with `mark`; reduced over the ranks.
  UnitMarks MarkUnits(const BlockLayout& units, std::vector<uint64_t> region_blocks, const std::vector<Box>& clipped,
                      int level, int32_t mark);
  // Collective, part of phase 1: `coarse`, or its units cut to the finest (2^kMinUnitBits samples)
  // when a good part of `coarse` is shared by several ranks and fewer samples are then (the .cpp).
  UnitMarks RefineSharedUnits(const UnitMarks& coarse, const Box& region, const std::vector<Box>& clipped, int level,
                              int32_t mark);
  // The dataset's block files, read by both modes (made on first use; keeps its tables).
  ClassicBlockSource& Blocks();

  MPI_Comm comm_;
  std::string idx_path_;
  ReadOptions options_;
  int rank_ = 0, ranks_ = 1;  // in comm_ (asked once: the I/O thread makes no MPI calls)
  IdxHeader header_;
  std::shared_ptr<BlockLayout> layout_;
  std::optional<FileIdentity> idx_identity_;  // of the .idx right after it was read (its version)
  std::shared_ptr<ClassicBlockSource> blocks_;  // the block files, serial (the ranks are the parallelism)
  std::shared_ptr<PidxChunkSource> chunks_;     // a PIDX chunked dataset's blocks, built over blocks_
  std::shared_ptr<ArcoBlockSource> arco_;       // an ARCO dataset's block files (one file per block)
  std::unique_ptr<Dataset> local_;  // one-phase reads: hzio::core's serial engine over blocks_ or arco_
  std::map<int, std::unique_ptr<BlockLayout>> unit_layouts_;  // by bits per block, with their tables
  int64_t default_budget_ = 0;  // AggregationWindow::DefaultBudget, asked once (it is collective)
  int placing_threads_ = 1;     // options_.placing_threads, or this rank's CPUs (asked once: it is collective)
  bool cpus_short_ = false;     // this node runs more ranks than it has CPUs (NodeShare::ShortOfCpus)
  uint64_t piece_bytes_ = 0;    // the pieces this rank's files are read in (PieceBytesFor its node)
  std::unique_ptr<ThreadPool> placers_;  // placing_threads_ - 1 helpers, made on first use
  IoStats stats_;
};

}  // namespace hzio::mpi
