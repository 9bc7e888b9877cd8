/// Phase 2 of the parallel writer: HZ encoding of a restructured power-of-two box into the hz
/// runs of each level (idx-format.md §3.1–3.2). An aligned box is a union of HZ subtrees (the
/// longest bitmask suffix whose per-axis bit counts fit the box); within a subtree, the samples of
/// each level above the subtree's root form one contiguous hz run, so a box is a handful of runs
/// per level that map onto block ranges with a single copy each.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio::mpi {

/// Memory for the first `count` samples of a run handed to the encoder's sink.
struct RunDestination {
  uint8_t* data = nullptr;
  int64_t count = 0;
};

/// Where encoded samples go: called with (hz, count) for a run of `count` samples in increasing hz
/// order; returns memory for its first n (1 <= n <= count) samples and is called again for the rest.
/// The writer points it straight into an aggregator buffer, or into a staging buffer for a put.
using RunSink = std::function<RunDestination(uint64_t hz, int64_t count)>;

class HzEncoder {
 public:
  /// For boxes of `box_size` (powers of two, aligned to multiples of it).
  HzEncoder(const Bitmask& bitmask, const Point& box_size);

  /// Number of trailing pattern positions forming one subtree.
  int subtree_bits() const { return bits_; }
  /// The extent of one subtree: Encode() reads only subtrees that meet `keep`, so only `keep`
  /// rounded out to multiples of this.
  const Point& subtree_size() const { return subtree_size_; }

  /// Encodes `data` (row-major over `box`, `sample_bytes` per sample) into `sink`, one gather from
  /// the row-major box into the destination. Subtrees with no sample in `keep` (the dataset box)
  /// are skipped.
  void Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep, const RunSink& sink) const;

 private:
  Bitmask bitmask_;
  Point box_size_, subtree_size_;
  int bits_ = 0;
  std::vector<int64_t> local_offset_;  // in-subtree Z index -> row-major sample offset in the box
};

}  // namespace hzio::mpi
