/// Phase 2 of the parallel writer: HZ encoding of a restructured power-of-two box into dense
/// per-level buffers (idx-format.md §3.1–3.2). An aligned box is a union of HZ subtrees (the
/// longest bitmask suffix whose per-axis bit counts fit the box); within a subtree, the samples of
/// each level above the subtree's root form one contiguous hz run, so a level buffer is a handful
/// of runs that map onto block ranges with a single copy each.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio::mpi {

/// Samples hz .. hz+count-1, stored at `offset` samples into a level buffer.
struct HzRun {
  uint64_t hz = 0;
  int64_t count = 0;
  int64_t offset = 0;
};

/// Allocates without zero-filling: every byte of a level buffer is written by the encoder.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// The samples of one level held by a box, in increasing hz order.
struct LevelBuffer {
  int level = 0;
  std::vector<uint8_t, UninitializedAllocator<uint8_t>> bytes;
  std::vector<HzRun> runs;
};

class HzEncoder {
 public:
  /// For boxes of `box_size` (powers of two, aligned to multiples of it).
  HzEncoder(const Bitmask& bitmask, const Point& box_size);

  /// Number of trailing pattern positions forming one subtree.
  int subtree_bits() const { return bits_; }

  /// Encodes `data` (row-major over `box`, `sample_bytes` per sample). Subtrees with no sample in
  /// `keep` (the dataset box) are skipped. Returns one LevelBuffer per non-empty level.
  std::vector<LevelBuffer> Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep) const;

 private:
  Bitmask bitmask_;
  Point box_size_, subtree_size_;
  int bits_ = 0;
  std::vector<int64_t> local_offset_;  // in-subtree Z index -> row-major sample offset in the box
};

}  // namespace hzio::mpi
