/// Aggregation shared by the parallel writer and the parallel reader: which rank hosts which
/// aggregator, how a list of items (files for the writer, needed blocks for the reader) is cut into
/// contiguous, even ranges per aggregator (their memory: aggregation_window.h).
/// Everything here is a pure function of (item count, aggregator count, rank count), so every
/// rank computes any aggregator's range locally: no global table is ever exchanged.
#pragma once

#include <cstdint>
#include <vector>

namespace hzio {

/// Items [begin, end).
struct Span {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

/// Units of aggregation finer than a file's blocks (aligned hz sub-ranges of them, for the
/// writer's and the reader's balance and the reader's own units) are never cut below 2^this
/// samples: a few KiB per field and unit.
inline constexpr int kMinUnitBits = 12;

/// Part `i` of `n` items cut into `parts` contiguous ranges whose sizes differ by at most one.
Span EvenSplit(int64_t n, int64_t parts, int64_t i);
/// The part that holds `item` under EvenSplit(n, parts, ·).
int64_t EvenSplitOwner(int64_t n, int64_t parts, int64_t item);
/// Appends `span` to ascending `spans`, extending the last one when they touch; empty spans are
/// skipped.
void AppendMerged(std::vector<Span>& spans, const Span& span);

/// The rank hosting aggregator `i` of `aggregators`, spread evenly over `ranks` (so with fewer
/// aggregators than ranks, aggregators land on different nodes of a block-mapped job).
int AggregatorRank(int64_t i, int64_t aggregators, int ranks);
/// The aggregator hosted by `rank`, or -1.
int64_t AggregatorOfRank(int rank, int64_t aggregators, int ranks);

}  // namespace hzio
