/// The two-phase read of ParallelReader (parallel_reader.h), one function per phase: plan (the
/// units somebody needs, those one rank alone needs set apart for it (unit_readers.h), the others cut
/// into aggregator ranges and rounds under the memory budget), read a rank's own units
/// (parallel_reader_own_units.cpp), read files (each aggregator its range, block_reading.h),
/// exchange (one window epoch per round) and place.
#include <algorithm>
#include <chrono>
#include <future>
#include <iterator>
#include <numeric>
#include <optional>

#include "hzio/codec/codec.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/hz_unit_placer.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_reader_plan.h"
#include "hzio/mpi/unit_readers.h"
#include "hzio/util/box_copy.h"
#include "hzio/util/buffer_pool.h"
#include "hzio/util/stream_copy.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {

namespace {

// The shared part of a read counts as small at 1/kSmallSharedPart of its units or less: the
// coarse levels of a restart whose units are cut finely enough.
constexpr int64_t kSmallSharedPart = 16;

// Own units read from the disk in runs this long on average keep up with the window on a node
// short of CPUs: cold, 4 ranks on 2 cores, runs of 0.94 MiB (128³ float32 per rank) read 10-25%
// faster as own units than all through the window, runs of 0.49 MiB (192³ float32) 15% slower
// (bench/mpi/RESULTS.md, "own units from the disk on a node short of CPUs").
constexpr int64_t kMinOwnRunBytes = int64_t{768} << 10;

// Every unit the boxes need, ascending.
std::vector<uint64_t> AllUnitsOf(const std::vector<std::vector<uint64_t>>& box_blocks) {
  std::vector<uint64_t> all;
  for (const std::vector<uint64_t>& b : box_blocks) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

}  // namespace

int64_t ReadPlan::SnapUp(int64_t x) const {
  if (x >= total()) return total();
  const int64_t k = x / block_samples, r = x % block_samples, ss = slab[static_cast<size_t>(k)];
  return k * block_samples + (r + ss - 1) / ss * ss;
}

int64_t ReadPlan::MaxAggregatorSamples() const {
  int64_t most = 0;
  for (int64_t a = 0; a < aggregators; ++a) most = std::max(most, Range(a).size());
  return most;
}

Span ReadPlan::Range(int64_t aggregator) const {
  const Span s = EvenSplit(total(), aggregators, aggregator);
  return Span{SnapUp(s.begin), SnapUp(s.end)};
}

ReadPlan MakeReadPlan(const BlockLayout& layout, std::vector<uint64_t> blocks, int64_t aggregators, bool whole_units) {
  ReadPlan plan;
  plan.blocks = std::move(blocks);
  plan.block_samples = layout.samples_per_block();
  int64_t slabs = 0;
  for (uint64_t b : plan.blocks) {
    const int64_t outer = whole_units ? 1 : layout.BlockGrid(b).count[layout.dims() - 1];
    plan.slab.push_back(plan.block_samples / outer);
    slabs += outer;
  }
  plan.aggregators = std::clamp<int64_t>(aggregators, 1, std::max<int64_t>(1, slabs));
  return plan;
}

ReadPlan PlanRegionRead(const IdxHeader& header, const BlockLayout& layout, const Box& region, int level,
                        int64_t aggregators) {
  return MakeReadPlan(layout, BoxBlocks(header, layout, region, level), aggregators);
}

// What an aggregator's read of one round's files did (no MPI: it may run on the I/O thread).
struct ParallelReader::RoundRead {
  int64_t file_bytes = 0, aggregator_bytes = 0, direct_bytes = 0;
  double seconds = 0, layout_seconds = 0;
};

// One contiguous range of slabs (of a block's slowest axis) a rank takes from an aggregator's part
// of the window, and where its samples go in a result box.
struct ParallelReader::Fetch {
  size_t field, box;
  AxisCopy plan[kMaxDims];  // from the fetched slabs to the result grid
  Point count;              // the fetched slabs' grid
  int target;
  int64_t displacement, bytes, at;
  const uint8_t* direct;  // the range itself when this rank can load it, else null
  uint64_t unit;          // an hz-ordered window's: the unit whose samples the range holds
};

std::exception_ptr ParallelReader::ReadTwoPhase(const std::vector<int>& fields, int64_t time, int level,
                                                const Box& region, const std::vector<Box>& clipped,
                                                std::vector<std::vector<Target>>& results,
                                                const TwoPhaseChoices& choices) {
  if (region.Empty()) return nullptr;  // nobody asked for anything (the same on every rank)
  // Phase 1: the plan. Then per round: the aggregators read their files (phase 2), every rank gets
  // its slabs and places those it can load directly (phase 3), then the ones it got (phase 4).
  TwoPhasePlan planned = PlanTwoPhase(fields, time, level, region, clipped, choices);
  planned.stream = choices.stream;
  planned.clipped = &clipped;
  const TwoPhasePlan& plan = planned;
  HzUnitPlacer placer(*plan.units, level);  // own units and an hz-ordered window's, placed from hz order
  // Every rank reads when some rank reads its own units (aggregator i is rank i then).
  stats_.aggregators = plan.any_own || plan.rounds.empty() ? ranks_ : plan.rounds.front().aggregators;
  stats_.rounds = static_cast<int64_t>(plan.rounds.size());
  stats_.overlapped = plan.overlap;
  stats_.hz_window = plan.hz_window && !plan.rounds.empty();
  std::exception_ptr error;
  try {
    ReadOwnUnits(plan, fields, time, level, clipped, results, placer);
  } catch (...) {
    error = std::current_exception();  // the rounds below still take part in every collective step
  }
  if (plan.rounds.empty()) {  // the same on every rank: nothing to exchange, no window
    if (plan.stream) StreamFence();
    return error;
  }
  // The window is the communicator's (cached, regrown collectively when a read needs more): every
  // rank derives the same size from the global plan, so the decision is the same everywhere. It
  // holds the largest round (twice when overlapped) and is reused by every round.
  double t0 = MPI_Wtime();
  const std::shared_ptr<AggregationWindow> window = AggregationWindow::Acquire(comm_, plan.WindowBytes(), options_.windows);
  stats_.local.io += MPI_Wtime() - t0;
  Blocks();  // made here, before the I/O thread may use it
  // Overlapped: round r+1's files are read on one I/O thread (no MPI) into the other half of the
  // window while round r is exchanged and placed. That half was round r-1's, whose closing fence
  // every rank has passed (no get or direct load of it is left). The thread is declared after the
  // window and the plan, so if anything throws its destructor finishes the read before they go.
  std::optional<ThreadPool> io_thread;
  if (plan.overlap) io_thread.emplace(1);
  std::future<RoundRead> ahead;
  for (size_t r = 0; r < plan.rounds.size(); ++r) {
    t0 = MPI_Wtime();
    try {
      if (ahead.valid()) {  // read during the previous round: only the wait is not hidden
        const RoundRead read = ahead.get();
        stats_.file_bytes += read.file_bytes;
        stats_.local_direct_bytes += read.direct_bytes;
        stats_.local_aggregator_bytes += read.aggregator_bytes;
        stats_.local.io += MPI_Wtime() - t0;
      } else if (!error) {
        const RoundRead read = ReadRoundFiles(plan, r, window->data(), fields, time, level);
        stats_.file_bytes += read.file_bytes;
        stats_.local_direct_bytes += read.direct_bytes;
        stats_.local_aggregator_bytes += read.aggregator_bytes;
        stats_.local.hz += read.layout_seconds;
        stats_.local.io += read.seconds - read.layout_seconds;
      }
    } catch (...) {
      if (!error) error = std::current_exception();  // agreed with the exchange's gets
    }
    if (plan.overlap && r + 1 < plan.rounds.size() && !error) {
      auto task = std::make_shared<std::packaged_task<RoundRead()>>(
          [&, next = r + 1] { return ReadRoundFiles(plan, next, window->data(), fields, time, level); });
      ahead = task->get_future();
      io_thread->Submit([task] { (*task)(); });
    }
    const std::vector<Fetch> fetches = PlanFetches(plan, r, *window, clipped, results, error);
    const PooledBuffer arena = ExchangeRound(plan, fetches, *window, results, placer, error);
    PlaceFetched(plan, fetches, arena, results, placer, error);
  }
  if (ahead.valid()) ahead.wait();  // only after an error, which stopped the rounds' work
  if (plan.stream) StreamFence();
  return error;
}

ParallelReader::TwoPhasePlan ParallelReader::PlanTwoPhase(const std::vector<int>& fields, int64_t time, int level,
                                                          const Box& region, const std::vector<Box>& clipped,
                                                          const TwoPhaseChoices& choices) {
  // The blocks somebody actually needs: a bitmap reduction over the region's block list (linear
  // in blocks, independent of the rank count).
  const int ranks = CommSize(comm_);
  const int64_t want = options_.aggregators > 0 ? options_.aggregators : ranks;
  const int64_t aggregators = std::min<int64_t>(want, ranks);
  TwoPhasePlan plan;
  plan.level = level;
  for (const int field : fields)
    plan.sample_bytes.push_back(header_.fields[static_cast<size_t>(field)].dtype.SampleBytes());
  const int64_t sample_bytes = std::accumulate(plan.sample_bytes.begin(), plan.sample_bytes.end(), int64_t{0});
  // Who reads each unit (unit_readers.h): one reduction of every rank's marks over the region's
  // units (linear in units, independent of the rank count). A rank marks the units of its boxes
  // with its rank, or as shared when no rank reads units of its own (owner_reads off on some rank,
  // or fewer aggregators than ranks asked for: then only the aggregators read files). Every rank
  // decides the same from agreed choices and reduced marks, so the collective steps below match.
  const int32_t mark = choices.owner_reads && aggregators == ranks ? rank_ : kSharedUnit;
  std::vector<uint64_t> region_blocks;
  const BlockLayout& layout = PlanLayout(region, level, aggregators, region_blocks);
  UnitMarks marks = MarkUnits(layout, std::move(region_blocks), clipped, level, mark);
  const auto min_own_units = [&](const BlockLayout& units) {
    const int64_t unit_bytes = units.samples_per_block() * sample_bytes;
    return (choices.owner_min_bytes + unit_bytes - 1) / unit_bytes;
  };
  UnitSplit split = SplitUnits(marks.region_blocks, marks.readers, ranks, rank_, min_own_units(*marks.units));
  const auto every_field = [&](auto&& predicate) {
    return std::all_of(fields.begin(), fields.end(), [&](int f) { return predicate(header_.fields[static_cast<size_t>(f)]); });
  };
  // Of a compressed block every reader decodes all of it, so only raw fields are cut finer.
  const bool raw = every_field(StoresRawBlocks);
  const auto needed_units = [](const UnitMarks& m) {
    return std::count_if(m.readers.begin(), m.readers.end(), [](int32_t r) { return r != kNoReader; });
  };
  const auto shared_units = [](const UnitMarks& m) {
    return std::count_if(m.readers.begin(), m.readers.end(), [](int32_t r) { return r == kSharedUnit; });
  };
  // A small read with a shared part goes wholly through the window for the disk's sake
  // (unit_readers.h), unless a node short of CPUs would read own units in long runs (below). When
  // every rank finds the files of the units it needs in the page cache there is no disk to spare:
  // each rank then reads its own units, which saves the window's second pass over memory, with the
  // units cut finer where that makes more of them some rank's own (RefineSharedUnits; RESULTS.md,
  // "own units of small reads from the page cache").
  // The marks with raw units cut finer: made once (a collective step), for either use below.
  std::optional<UnitMarks> finer;
  const auto refined = [&]() -> UnitMarks& {
    if (!finer) finer = raw ? RefineSharedUnits(marks, region, clipped, level, mark) : marks;
    return *finer;
  };
  // Every rank reads all the units it needs, the shared ones too (no window round).
  const auto read_all_units = [](UnitSplit& into, const UnitMarks& of) {
    into.own = AllUnitsOf(of.box_blocks);
    into.shared.clear();
  };
  if (!split.any_own && mark != kSharedUnit) {
    if (FilesCached(time, *marks.units, AllUnitsOf(marks.box_blocks))) {
      UnitMarks& fine = refined();
      UnitSplit cached = SplitUnits(fine.region_blocks, fine.readers, ranks, rank_, 0);
      // A small shared rest (the coarse levels) is then read by every rank that needs it: a window
      // round for it costs more in synchronisation than those duplicate reads from the cache.
      if (cached.any_own && static_cast<int64_t>(cached.shared.size()) * kSmallSharedPart <= needed_units(fine))
        read_all_units(cached, fine);
      if (cached.any_own) {
        marks = std::move(fine);
        split = std::move(cached);
      }
    } else if (choices.cpus_short &&
               MeanOwnRunBytes(marks.region_blocks, marks.readers, marks.units->samples_per_block() * sample_bytes) >=
                   kMinOwnRunBytes) {
      // From the disk on a node whose ranks take turns on its cores, the window's second pass over
      // memory and its waits cost more than reading own units in long runs costs the disk.
      split = SplitUnits(marks.region_blocks, marks.readers, ranks, rank_, 0);
    }
  } else if (split.any_own && !split.shared.empty()) {
    // A large read's shared rest takes a window round after the own units: a second trip to the
    // files, a synchronisation and a second pass over memory, none of it hidden behind the own
    // reads (a cold 2-rank restart of 128³ × 16 float64 per rank: blocks 0-7, levels 0-19, 12.5% of
    // the bytes, took 0.07 of 0.34 s). Cut finer, only the coarsest levels stay shared. When every
    // rank then owns as many units (none of the shared ones is an own unit set aside for balance)
    // and reading the shared ones on every rank that needs them costs little (at most ranks - 1
    // more reads of each, 1/kSmallSharedPart of the read in all), each rank reads all its units
    // itself, in one pass over each file: more bytes from the disk (the finer units alternate
    // between the ranks, and a rank's direct pieces read through the others'), but no round.
    UnitMarks& fine = refined();
    UnitSplit all = SplitUnits(fine.region_blocks, fine.readers, ranks, rank_, 0);
    const int64_t shared = shared_units(fine);
    if (all.any_own && static_cast<int64_t>(all.shared.size()) == shared &&
        shared * (ranks - 1) * kSmallSharedPart <= needed_units(fine)) {
      read_all_units(all, fine);
      marks = std::move(fine);
      split = std::move(all);
    }
  }
  // Otherwise, when (raw units cut finer where that helps) nearly every unit is one rank's, the
  // window holds the units in hz order as the files keep them: the aggregators read their
  // contiguous ranges of the files straight into it without permuting, and each rank places its
  // units from there (HzUnitPlacer: mostly scattered straight into its boxes). The disk keeps its
  // large in-order reads and the samples take two passes over memory instead of three (RESULTS.md,
  // "an hz-ordered window").
  if (!split.any_own && mark != kSharedUnit && every_field([](const Field& f) { return f.hz_layout; })) {
    UnitMarks& fine = refined();
    if (shared_units(fine) * kSmallSharedPart <= needed_units(fine)) {
      plan.hz_window = true;
      marks = std::move(fine);
      split = UnitSplit{};  // every needed unit through the window
      for (size_t i = 0; i < marks.region_blocks.size(); ++i)
        if (marks.readers[i] != kNoReader) split.shared.push_back(marks.region_blocks[i]);
    }
  }
  plan.units = marks.units;
  plan.box_blocks = std::move(marks.box_blocks);
  plan.own = std::move(split.own);
  plan.any_own = split.any_own;
  std::vector<uint64_t> blocks = std::move(split.shared);
  // Overlapped rounds take half of the budget each. A read that fits one half but is large is cut
  // into kOverlapRounds rounds all the same, so that its reads have an exchange to hide behind.
  constexpr int64_t kOverlapMinBytes = int64_t{16} << 20, kOverlapRounds = 4;
  if (blocks.empty()) return plan;  // every needed unit is read by its own rank: no rounds
  const bool overlap = choices.overlap, whole = plan.hz_window;
  const int64_t budget = choices.budget;
  plan.rounds = PlanRounds(*plan.units, blocks, aggregators, sample_bytes, overlap ? budget / 2 : budget, whole);
  if (overlap && plan.rounds.size() == 1) {
    const int64_t need = plan.rounds.front().MaxAggregatorSamples() * sample_bytes;
    if (need >= kOverlapMinBytes)
      plan.rounds =
          PlanRounds(*plan.units, blocks, aggregators, sample_bytes, (need + kOverlapRounds - 1) / kOverlapRounds, whole);
  }
  plan.overlap = overlap && plan.rounds.size() > 1;
  if (overlap && !plan.overlap)  // one round after all: the whole budget is its
    plan.rounds = PlanRounds(*plan.units, std::move(blocks), aggregators, sample_bytes, budget, whole);
  for (const ReadPlan& round : plan.rounds)
    plan.round_bytes = std::max(plan.round_bytes, round.MaxAggregatorSamples() * sample_bytes);
  return plan;
}

ParallelReader::RoundRead ParallelReader::ReadRoundFiles(const TwoPhasePlan& plan, size_t round, uint8_t* window,
                                                        const std::vector<int>& fields, int64_t time, int level) {
  // No MPI here (it may run on the I/O thread): the plan says which aggregator this rank is.
  RoundRead read;
  const ReadPlan& r = plan.rounds[round];
  const int64_t my_agg = AggregatorOfRank(rank_, r.aggregators, ranks_);
  if (my_agg < 0) return read;
  const auto t0 = std::chrono::steady_clock::now();
  const ReadIntoWindow part = ReadAggregatorRange(plan, round, my_agg, fields, time, level, window);
  read.file_bytes += part.file_bytes;
  read.layout_seconds += part.layout_seconds;
  read.direct_bytes += part.direct_bytes;
  for (size_t k = 0; k < fields.size(); ++k) read.aggregator_bytes += r.Range(my_agg).size() * plan.sample_bytes[k];
  read.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return read;
}

std::vector<ParallelReader::Fetch> ParallelReader::PlanFetches(const TwoPhasePlan& plan, size_t round,
                                                               const AggregationWindow& window,
                                                               const std::vector<Box>& clipped,
                                                               const std::vector<std::vector<Target>>& results,
                                                               std::exception_ptr& error) const {
  // Every rank fetches the slabs (of a block's slowest axis) that hold its samples: one
  // contiguous range per (field, box, block, holding aggregator). A range this rank can load
  // directly (its own aggregator's, or one on this node with a node-shared window) is placed
  // straight from there inside the epoch; the others are got into one pooled arena and placed
  // after it. Contiguous gets, because Open MPI's rdma component moves strided datatypes one row
  // per transfer (80x slower on a 128 MiB read here). A range covers whole slabs, so it may carry
  // a few samples outside the box.
  std::vector<Fetch> fetches;
  if (error) return fetches;
  const ReadPlan& r = plan.rounds[round];
  const int ranks = CommSize(comm_), dims = header_.dims(), outer = dims - 1;
  const int64_t bs = r.block_samples;
  // This round's blocks: a contiguous part of the sorted list of needed blocks.
  const uint64_t first_block = r.blocks.empty() ? 1 : r.blocks.front();
  const uint64_t last_block = r.blocks.empty() ? 0 : r.blocks.back();
  int64_t arena_bytes = 0;
  try {
    for (size_t k = 0; k < plan.sample_bytes.size(); ++k) {
      const int64_t sb = plan.sample_bytes[k];
      for (size_t bi = 0; bi < clipped.size(); ++bi) {
        for (uint64_t id : plan.box_blocks[bi]) {
          if (id < first_block || id > last_block) continue;  // another round's
          const int64_t index = std::lower_bound(r.blocks.begin(), r.blocks.end(), id) - r.blocks.begin();
          if (r.blocks[static_cast<size_t>(index)] != id) continue;  // this rank's own (ReadOwnUnits placed it)
          AxisCopy copy[kMaxDims];
          const Grid g = plan.units->BlockGrid(id);
          if (!PlanGridCopy(g, results[k][bi].grid, clipped[bi], copy)) continue;
          if (plan.hz_window) {  // the whole unit, hz-ordered, from the one aggregator holding it
            const int64_t agg = r.AggregatorOfSlab(index * bs);
            const int target = AggregatorRank(agg, r.aggregators, ranks);
            Fetch f{k, bi, {}, g.count, target, 0, 0, arena_bytes, nullptr, id};
            f.displacement = plan.Offset(round, agg, k) + (index * bs - r.Range(agg).begin) * sb;
            f.bytes = UnitSamplesNeeded(*plan.units, id, plan.level) * sb;
            if (const uint8_t* part = window.Direct(target)) f.direct = part + f.displacement;
            else arena_bytes += f.bytes;
            fetches.push_back(f);
            continue;
          }
          const int64_t slab = r.slab[static_cast<size_t>(index)];
          const AxisCopy whole = copy[outer];
          // The selected slabs, cut where the holding aggregator changes.
          for (int64_t m0 = 0; m0 < whole.count;) {
            const auto slab_of = [&](int64_t m) { return whole.src_first + m * whole.src_step; };
            const auto owner = [&](int64_t m) { return r.AggregatorOfSlab(index * bs + slab_of(m) * slab); };
            const int64_t agg = owner(m0);
            int64_t m1 = m0 + 1;
            while (m1 < whole.count && owner(m1) == agg) ++m1;
            const int target = AggregatorRank(agg, r.aggregators, ranks);
            Fetch f{k, bi, {}, g.count, target, 0, 0, arena_bytes, nullptr, id};
            std::copy(std::begin(copy), std::end(copy), std::begin(f.plan));
            const int64_t first = slab_of(m0), last = slab_of(m1 - 1);
            f.count[outer] = last - first + 1;
            f.plan[outer].src_first = 0;
            f.plan[outer].dst_first = whole.dst_first + m0 * whole.dst_step;
            f.plan[outer].count = m1 - m0;
            f.displacement = plan.Offset(round, agg, k) + (index * bs + first * slab - r.Range(agg).begin) * sb;
            f.bytes = f.count[outer] * slab * sb;
            if (const uint8_t* part = window.Direct(target)) f.direct = part + f.displacement;
            else arena_bytes += f.bytes;
            fetches.push_back(f);
            m0 = m1;
          }
        }
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  return fetches;
}

PooledBuffer ParallelReader::ExchangeRound(const TwoPhasePlan& plan, const std::vector<Fetch>& fetches,
                                           AggregationWindow& window, std::vector<std::vector<Target>>& results,
                                           HzUnitPlacer& placer, std::exception_ptr& error) {
  const double t0 = MPI_Wtime();
  PooledBuffer arena;
  if (!error) {
    try {
      int64_t arena_bytes = 0;
      for (const Fetch& f : fetches)
        if (!f.direct) arena_bytes += f.bytes;
      arena = PooledBuffer(static_cast<size_t>(arena_bytes));
    } catch (...) {
      error = std::current_exception();  // still take part in the fences below
    }
  }
  window.Fence(MPI_MODE_NOPRECEDE);  // opens the epoch: every aggregator's part is decoded
  if (!error) {
    try {
      for (const Fetch& f : fetches)
        if (!f.direct) window.Get(arena.data() + f.at, f.bytes, f.target, f.displacement);
    } catch (...) {
      error = std::current_exception();
    }
  }
  double placing = 0;
  if (!error) {  // before the closing fence: an aggregator may reuse its part right after it
    const double t1 = MPI_Wtime();
    for (const Fetch& f : fetches)
      if (f.direct) Place(plan, f, f.direct, results, placer);
    placing = MPI_Wtime() - t1;
  }
  window.Fence(MPI_MODE_NOSUCCEED);  // closes it: every get is complete
  stats_.local.aggregate += MPI_Wtime() - t0 - placing;
  (plan.hz_window ? stats_.local.hz : stats_.local.restructure) += placing;  // from hz order: the layout
  return arena;
}

void ParallelReader::PlaceFetched(const TwoPhasePlan& plan, const std::vector<Fetch>& fetches, const PooledBuffer& arena,
                                  std::vector<std::vector<Target>>& results, HzUnitPlacer& placer,
                                  const std::exception_ptr& error) {
  const double t0 = MPI_Wtime();
  if (!error)
    for (const Fetch& f : fetches)
      if (!f.direct) Place(plan, f, arena.data() + f.at, results, placer);
  (plan.hz_window ? stats_.local.hz : stats_.local.restructure) += MPI_Wtime() - t0;
}

void ParallelReader::Place(const TwoPhasePlan& plan, const Fetch& f, const uint8_t* src,
                           std::vector<std::vector<Target>>& results, HzUnitPlacer& placer) const {
  Target& result = results[f.field][f.box];
  if (plan.hz_window)
    placer.Place(f.unit, src, plan.sample_bytes[f.field], result.grid, result.data, (*plan.clipped)[f.box], plan.stream);
  else
    CopyPlanned(src, f.count, result.data, result.grid.count, f.plan, header_.dims(), plan.sample_bytes[f.field],
                plan.stream);
}

bool ParallelReader::FilesCached(int64_t time, const BlockLayout& units, const std::vector<uint64_t>& mine) {
  // Nine tenths of the bytes: a few pages evicted do not send a read back to the window.
  constexpr int64_t kCachedTenths = 9;
  int cached = 0;
  try {
    const CachedShare share = CachedFileBytes(Blocks(), units, time, mine);
    cached = share.cached * 10 >= share.bytes * kCachedTenths ? 1 : 0;
  } catch (...) {
    cached = 0;  // the read itself reports what is wrong with the files
  }
  MpiCheck(MPI_Allreduce(MPI_IN_PLACE, &cached, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce(cached)");
  return cached == 1;
}

ParallelReader::UnitMarks ParallelReader::MarkUnits(const BlockLayout& units, std::vector<uint64_t> region_blocks,
                                                   const std::vector<Box>& clipped, int level, int32_t mark) {
  UnitMarks marks{&units, std::move(region_blocks), {}, {}};
  marks.readers.assign(marks.region_blocks.size(), kNoReader);
  for (const Box& b : clipped) {
    marks.box_blocks.push_back(BoxBlocks(header_, units, b, level));
    for (uint64_t id : marks.box_blocks.back())
      marks.readers[static_cast<size_t>(std::lower_bound(marks.region_blocks.begin(), marks.region_blocks.end(), id) -
                                        marks.region_blocks.begin())] = mark;
  }
  ReduceReaders(comm_, marks.readers);
  return marks;
}

ParallelReader::UnitMarks ParallelReader::RefineSharedUnits(const UnitMarks& coarse, const Box& region,
                                                           const std::vector<Box>& clipped, int level, int32_t mark) {
  // A block larger than the ranks' boxes is needed by several of them even where its parts are
  // each one rank's: with 64³ per rank and 2^16-sample blocks, the S3D domain of 2 ranks has no
  // block that is either rank's own. When more than 1/kSmallSharedPart of the read is shared, the
  // units are cut to the finest (aligned hz sub-ranges of 2^kMinUnitBits samples, as PlanLayout
  // makes), kept if fewer samples are shared then. One reduction, not one per halving: on a loaded
  // node each collective step costs milliseconds. Every rank decides the same from the marks.
  const auto samples = [](const UnitMarks& m, auto&& which) {
    const int64_t count = std::count_if(m.readers.begin(), m.readers.end(), which);
    return count * m.units->samples_per_block();
  };
  const auto shared = [](int32_t r) { return r == kSharedUnit; };
  const int64_t coarse_shared = samples(coarse, shared);
  if (coarse.units->bits_per_block() <= kMinUnitBits ||
      coarse_shared * kSmallSharedPart <= samples(coarse, [](int32_t r) { return r != kNoReader; }))
    return coarse;
  const BlockLayout& finest = UnitLayout(kMinUnitBits);
  UnitMarks fine = MarkUnits(finest, BoxBlocks(header_, finest, region, level), clipped, level, mark);
  return samples(fine, shared) < coarse_shared ? fine : coarse;
}

const BlockLayout& ParallelReader::UnitLayout(int bits) {
  if (bits == header_.bits_per_block) return *layout_;
  std::unique_ptr<BlockLayout>& l = unit_layouts_[bits];
  if (!l) l = std::make_unique<BlockLayout>(header_.bitmask, bits);
  return *l;
}

std::vector<ReadPlan> PlanRounds(const BlockLayout& layout, std::vector<uint64_t> blocks, int64_t aggregators,
                                 int64_t sample_bytes, int64_t budget_bytes, bool whole_units) {
  ReadPlan whole = MakeReadPlan(layout, blocks, aggregators, whole_units);
  const int64_t need = whole.MaxAggregatorSamples() * sample_bytes;
  if (need <= budget_bytes || blocks.size() <= 1) return {std::move(whole)};
  // Even rounds of contiguous blocks: each aggregator then holds about need / rounds bytes.
  const int64_t n = static_cast<int64_t>(blocks.size());
  const int64_t count = std::min(n, (need + budget_bytes - 1) / std::max<int64_t>(1, budget_bytes));
  std::vector<ReadPlan> rounds;
  for (int64_t r = 0; r < count; ++r) {
    const Span part = EvenSplit(n, count, r);
    rounds.push_back(MakeReadPlan(layout, std::vector<uint64_t>(blocks.begin() + part.begin, blocks.begin() + part.end),
                                  aggregators, whole_units));
  }
  return rounds;
}

const BlockLayout& ParallelReader::PlanLayout(const Box& region, int level, int64_t aggregators,
                                              std::vector<uint64_t>& region_blocks) {
  // A read that needs few blocks (a small dataset, a coarse level) would leave each aggregator a
  // few rows of blocks it must still read and permute whole (an 8-rank half-resolution read of the
  // S3D case read 4x the bytes it kept). It is planned on sub-blocks instead: aligned hz
  // sub-ranges of the file's blocks, halved until every aggregator gets several (or they reach
  // 2^kMinUnitBits samples). Every rank computes the same from the agreed region.
  constexpr int64_t kUnitsPerAggregator = 4;
  int bits = header_.bits_per_block;
  region_blocks = BoxBlocks(header_, *layout_, region, level);
  while (bits > kMinUnitBits && static_cast<int64_t>(region_blocks.size()) < kUnitsPerAggregator * aggregators)
    region_blocks = BoxBlocks(header_, UnitLayout(--bits), region, level);
  return UnitLayout(bits);
}

ParallelReader::ReadIntoWindow ParallelReader::ReadAggregatorRange(const TwoPhasePlan& plan, size_t round,
                                                                   int64_t agg, const std::vector<int>& fields,
                                                                   int64_t time, int level, uint8_t* window) {
  // This aggregator's samples [span.begin, span.end) of the concatenated decoded blocks, of every
  // field (field after field in its part of the window), decoded straight into place: of a block
  // the range cuts, only the rows inside it. An hz-ordered window's ranges hold whole units, kept
  // in hz order.
  ReadIntoWindow result;
  const ReadPlan& r = plan.rounds[round];
  const Span span = r.Range(agg);
  if (span.size() == 0) return result;
  const int64_t bs = r.block_samples;
  const int64_t k0 = span.begin / bs, k1 = (span.end - 1) / bs + 1;
  std::vector<uint64_t> mine(r.blocks.begin() + k0, r.blocks.begin() + k1);
  std::vector<Span> rows;
  std::vector<FieldTarget> targets;
  for (size_t f = 0; f < fields.size(); ++f) {
    uint8_t* const buffer = window + plan.Offset(round, agg, f);
    targets.push_back(FieldTarget{fields[f], {}});
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t from = std::max(span.begin, k * bs), to = std::min(span.end, (k + 1) * bs);
      targets.back().out.push_back(buffer + (from - span.begin) * plan.sample_bytes[f]);
      if (f == 0) rows.push_back(Span{from - k * bs, to - k * bs});
    }
  }
  ReadBlocksOptions how;
  how.rows = plan.hz_window ? nullptr : &rows;
  how.hz_order = plan.hz_window;
  how.direct = options_.direct_reads;
  how.piece_bytes = piece_bytes_;
  const BlockReadStats rs = ReadBlocks(Blocks(), *plan.units, targets, time, mine, options_.missing_files_are_errors, level, how);
  result.file_bytes = rs.file_bytes;
  result.direct_bytes = rs.direct_bytes;
  result.layout_seconds = rs.layout_seconds;
  return result;
}

}  // namespace hzio::mpi
