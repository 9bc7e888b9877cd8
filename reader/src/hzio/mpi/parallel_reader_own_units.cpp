/// A rank's own units in a two-phase read (ParallelReader, parallel_reader.h; unit_readers.h): the
/// units that only this rank's boxes need are read by this rank, each file once in file order over
/// all the fields (ReadBlocks), and each unit, as soon as it is decoded, goes into the boxes it meets:
/// scattered from hz order into them where they take it whole (hz/unit_scatter.h), else permuted
/// into a buffer of one unit that is still in the caches and copied from there. No aggregator's
/// window to pass through and nothing to exchange. A single rank reads everything this way, without
/// a window.
#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/hz_unit_placer.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_reader_plan.h"
#include "hzio/util/stream_copy.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {

void ParallelReader::ReadOwnUnits(const TwoPhasePlan& plan, const std::vector<int>& fields, int64_t time, int level,
                                  const std::vector<Box>& clipped, std::vector<std::vector<Target>>& results,
                                  HzUnitPlacer& placer) {
  if (plan.own.empty()) return;
  const auto t_start = std::chrono::steady_clock::now();
  const BlockLayout& units = *plan.units;
  // Per own unit the boxes it meets, as (unit, box) pairs sorted by unit: work proportional to what
  // the boxes touch, however many boxes there are.
  std::vector<std::pair<uint64_t, size_t>> touches;
  for (size_t bi = 0; bi < clipped.size(); ++bi)
    for (const uint64_t id : plan.box_blocks[bi])
      if (std::binary_search(plan.own.begin(), plan.own.end(), id)) touches.emplace_back(id, bi);
  std::sort(touches.begin(), touches.end());
  std::vector<size_t> first_touch;  // touches of plan.own[i]: [first_touch[i], first_touch[i + 1])
  for (size_t t = 0; t < touches.size(); ++t)
    if (t == 0 || touches[t].first != touches[t - 1].first) first_touch.push_back(t);
  first_touch.push_back(touches.size());
  std::vector<FieldTarget> targets;
  for (const int field : fields) targets.push_back(FieldTarget{field, {}});
  const int dims = header_.dims();
  // The sinks are called from the placing threads at once (ReadBlocksOptions::placers): they share
  // nothing but the placer, whose tables are made under its lock.
  const BlockSink place = [&](size_t k, size_t i, const uint8_t* samples) {
    const Grid g = units.BlockGrid(plan.own[i]);
    for (size_t t = first_touch[i]; t < first_touch[i + 1]; ++t) {
      const size_t bi = touches[t].second;
      Target& result = results[k][bi];
      AxisCopy copy[kMaxDims];
      if (PlanGridCopy(g, result.grid, clipped[bi], copy))
        CopyPlanned(samples, g.count, result.data, result.grid.count, copy, dims, plan.sample_bytes[k], plan.stream);
    }
    if (plan.stream) StreamFence();  // on the thread that streamed: the placing threads' stores too
  };
  // A unit that every box it meets takes whole is scattered from hz order into them (HzUnitPlacer,
  // hz/unit_scatter.h: straight, or through a buffer of its rows that stays in the caches) instead of
  // being permuted into the unit's grid and copied through a plan.
  const HzSink scatter = [&](size_t k, size_t i, const uint8_t* hz_samples, int) {
    const int64_t sb = plan.sample_bytes[k];
    thread_local std::vector<HzUnitPlacer::Scatter> scatters;
    scatters.clear();
    for (size_t t = first_touch[i]; t < first_touch[i + 1]; ++t) {
      const size_t bi = touches[t].second;
      const HzUnitPlacer::Scatter s =
          placer.PlanScatter(plan.own[i], sb, results[k][bi].grid, results[k][bi].data, clipped[bi]);
      if (s.fit == HzUnitPlacer::Fit::kPart) return false;  // the box takes part of the unit: permuted and copied
      if (s.fit == HzUnitPlacer::Fit::kWhole) scatters.push_back(s);
    }
    for (const HzUnitPlacer::Scatter& s : scatters) placer.Apply(s, hz_samples, sb, plan.stream);
    if (plan.stream) StreamFence();  // as `place` does
    return true;
  };
  ReadBlocksOptions how;
  how.direct = options_.direct_reads;
  how.piece_bytes = piece_bytes_;
  how.sink = &place;
  how.hz_sink = &scatter;
  if (placing_threads_ > 1 && !ThreadPool::InTask()) {
    if (!placers_) placers_ = std::make_unique<ThreadPool>(placing_threads_ - 1);
    how.placers = placers_.get();
    stats_.local_threads = placers_->size() + 1;
  }
  const BlockReadStats read =
      ReadBlocks(Blocks(), units, targets, time, plan.own, options_.missing_files_are_errors, level, how);
  stats_.file_bytes += read.file_bytes;
  stats_.local_direct_bytes += read.direct_bytes;
  for (const int64_t sb : plan.sample_bytes)  // decoded, as an aggregator's part of a window counts
    stats_.local_own_bytes += static_cast<int64_t>(plan.own.size()) * units.samples_per_block() * sb;
  stats_.local_aggregator_bytes += stats_.local_own_bytes;
  stats_.local.hz += read.layout_seconds;  // placing: scattered into the boxes, or permuted and copied
  stats_.local.io += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count() -
                     read.layout_seconds;
}

}  // namespace hzio::mpi
