/// The read of a communicator of one rank (ParallelReader, parallel_reader.h): nothing to exchange,
/// so no window. Every file is read once in file order over all the fields (ReadBlocks), and each
/// block, as soon as it is decoded, is placed into the result boxes from a buffer of one block
/// that is still in the caches: one pass less over memory than decoding into an aggregator's
/// window and placing from there.
#include <algorithm>
#include <chrono>
#include <utility>

#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/util/stream_copy.h"

namespace hzio::mpi {

std::exception_ptr ParallelReader::ReadAlone(const std::vector<int>& fields, int64_t time, int level,
                                             const std::vector<Box>& clipped, std::vector<std::vector<Target>>& results,
                                             bool stream) {
  stats_.aggregators = 1;
  stats_.rounds = 1;
  const auto t_start = std::chrono::steady_clock::now();
  double placing = 0;
  try {
    // The blocks of every box, and per block the boxes it meets (as (block, box) pairs sorted by
    // block): work proportional to what the boxes touch, however many boxes there are.
    std::vector<std::pair<uint64_t, size_t>> touches;
    for (size_t bi = 0; bi < clipped.size(); ++bi)
      for (const uint64_t id : BoxBlocks(header_, *layout_, clipped[bi], level)) touches.emplace_back(id, bi);
    std::sort(touches.begin(), touches.end());
    std::vector<uint64_t> blocks;
    std::vector<size_t> first_touch;  // touches of blocks[i]: [first_touch[i], first_touch[i + 1])
    for (size_t t = 0; t < touches.size(); ++t) {
      if (t > 0 && touches[t].first == touches[t - 1].first) continue;
      blocks.push_back(touches[t].first);
      first_touch.push_back(t);
    }
    first_touch.push_back(touches.size());
    std::vector<FieldTarget> targets;
    std::vector<int64_t> sample_bytes;
    for (const int field : fields) {
      targets.push_back(FieldTarget{field, {}});
      sample_bytes.push_back(header_.fields[static_cast<size_t>(field)].dtype.SampleBytes());
    }
    const int dims = header_.dims();
    const BlockSink place = [&](size_t k, size_t i, const uint8_t* samples) {
      const auto t0 = std::chrono::steady_clock::now();
      const Grid g = layout_->BlockGrid(blocks[i]);
      for (size_t t = first_touch[i]; t < first_touch[i + 1]; ++t) {
        const size_t bi = touches[t].second;
        Target& result = results[k][bi];
        AxisCopy plan[kMaxDims];
        if (PlanGridCopy(g, result.grid, clipped[bi], plan))
          CopyPlanned(samples, g.count, result.data, result.grid.count, plan, dims, sample_bytes[k], stream);
      }
      placing += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    ReadBlocksOptions how;
    how.uncached = options_.direct_io;
    how.sink = &place;
    const BlockReadStats read =
        ReadBlocks(Blocks(), *layout_, targets, time, blocks, options_.missing_files_are_errors, level, how);
    if (stream) StreamFence();
    stats_.file_bytes += read.file_bytes;
    stats_.local_direct_bytes += read.direct_bytes;
    for (const int64_t sb : sample_bytes)  // decoded, as an aggregator's part of a window counts
      stats_.local_aggregator_bytes += static_cast<int64_t>(blocks.size()) * layout_->samples_per_block() * sb;
    stats_.local.hz += read.layout_seconds;
    stats_.local.restructure += placing;
    stats_.local.io += std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count() -
                       read.layout_seconds - placing;
  } catch (...) {
    StreamFence();  // whatever was stored before the error is ordered before the caller's reads
    return std::current_exception();
  }
  return nullptr;
}

}  // namespace hzio::mpi
