/// The direct reads a parallel read makes ahead of its placing (block_reading.h, ReadBlocks): the
/// pieces it will place next, read in order on one thread (the reader lane) into huge-page staging
/// buffers while the caller places the piece it has. Up to `depth` reads are queued, so the lane
/// goes from one read straight to the next; with one queued, every read waited for the placing
/// thread to be scheduled, take its piece and hand the lane the next, and on a node whose cores are
/// all placing that hand-over is late (bench/mpi/RESULTS.md, "two pieces read ahead").
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <span>

#include "hzio/util/large_allocation.h"

namespace hzio::mpi {

class PieceReadAhead {
 public:
  /// A piece: the index of its file among the read's files, and its first byte there.
  struct Key {
    size_t run = 0;
    uint64_t lo = 0;
    bool operator==(const Key&) const = default;
  };
  /// A piece read: its bytes (in a staging buffer) and whether the read bypassed the page cache.
  struct Got {
    const uint8_t* bytes = nullptr;
    bool direct = false;
  };
  /// Reads a piece into the staging buffer it is given (resizing it as it needs).
  using Read = std::function<Got(LargeAllocation& staging)>;

  /// `staging`: depth + 1 buffers (the piece being placed and those queued), kept by the caller so
  /// that later reads find their pages already faulted in.
  PieceReadAhead(int depth, std::span<LargeAllocation> staging);
  /// Waits for the reads still queued: they write into the staging buffers.
  ~PieceReadAhead();
  PieceReadAhead(const PieceReadAhead&) = delete;
  PieceReadAhead& operator=(const PieceReadAhead&) = delete;

  int queued() const { return static_cast<int>(queue_.size()); }
  bool full() const { return queued() == depth_; }
  /// Queues, on the reader lane, the read of the piece after the ones queued (at most depth).
  void Submit(Key key, Read read);
  /// The next piece: the oldest queued read, which must be `key`'s (kInternal otherwise), waited
  /// for; with none queued, `read` now on this thread. Rethrows the read's error. Its bytes stay
  /// valid until the next Take.
  Got Take(Key key, const Read& read);

 private:
  LargeAllocation& Buffer(uint64_t sequence) { return staging_[sequence % staging_.size()]; }

  struct Queued {
    Key key;
    std::future<Got> got;
  };
  int depth_;
  std::span<LargeAllocation> staging_;
  std::deque<Queued> queue_;
  uint64_t taken_ = 0;  // pieces taken so far: the next one's staging buffer is Buffer(taken_)
};

}  // namespace hzio::mpi
