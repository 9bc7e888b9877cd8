/// Aggregation shared by the parallel writer and the parallel reader: which rank hosts which
/// aggregator, how a list of items (files for the writer, needed blocks for the reader) is cut into
/// contiguous, even ranges per aggregator, and the one-sided window the aggregators expose.
/// Everything here is a pure function of (item count, aggregator count, rank count), so every
/// rank computes any aggregator's range locally: no global table is ever exchanged.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "hzio/util/buffer_pool.h"

namespace hzio::mpi {

/// Items [begin, end).
struct Span {
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

/// Part `i` of `n` items cut into `parts` contiguous ranges whose sizes differ by at most one.
Span EvenSplit(int64_t n, int64_t parts, int64_t i);
/// The part that holds `item` under EvenSplit(n, parts, ·).
int64_t EvenSplitOwner(int64_t n, int64_t parts, int64_t item);

/// The rank hosting aggregator `i` of `aggregators`, spread evenly over `ranks` (so with fewer
/// aggregators than ranks, aggregators land on different nodes of a block-mapped job).
int AggregatorRank(int64_t i, int64_t aggregators, int ranks);
/// The aggregator hosted by `rank`, or -1.
int64_t AggregatorOfRank(int rank, int64_t aggregators, int ranks);

/// A one-sided window over this rank's part of the aggregators' memory (size 0 on
/// non-aggregators), opened and closed with fences; transfers are split into <= 1 GiB calls. The
/// memory is a pooled huge-page buffer exposed with MPI_Win_create (Open MPI's rdma component):
/// measured here, a fresh 4 MiB MPI_Win_allocate window (shared-memory pages faulted one by one)
/// cost 4.4 ms before the first byte moved, the pooled window 0.9 ms including all puts. That
/// component moves non-contiguous datatypes piece by piece, so callers transfer contiguous ranges.
class RmaWindow {
 public:
  /// Exposes memory the caller allocated (and already agreed on); it goes back to the pool after
  /// the window is freed. Collective.
  RmaWindow(MPI_Comm comm, PooledBuffer memory);
  ~RmaWindow();                              // collective (MPI_Win_free)
  RmaWindow(const RmaWindow&) = delete;
  RmaWindow& operator=(const RmaWindow&) = delete;

  MPI_Win handle() const { return win_; }
  /// This rank's part of the window.
  uint8_t* data() const { return base_; }
  int64_t size() const { return bytes_; }
  void Fence(int assert_flags = 0);
  void Put(const uint8_t* src, int64_t bytes, int target, int64_t displacement);
  void Get(uint8_t* dst, int64_t bytes, int target, int64_t displacement);

 private:
  PooledBuffer memory_;
  MPI_Win win_ = MPI_WIN_NULL;
  uint8_t* base_ = nullptr;
  int64_t bytes_ = 0;
};

}  // namespace hzio::mpi
