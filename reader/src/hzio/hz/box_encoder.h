/// HZ encoding of an aligned power-of-two box into the hz runs of each level (idx-format.md
/// §3.1–3.2): phase 2 of the parallel writer, and the benchmarks' HZ floor. An aligned box is a
/// union of HZ subtrees (the longest bitmask suffix whose per-axis bit counts fit the box); inside
/// a subtree the samples of each level form one contiguous hz run, so a box is a handful of runs
/// per level that map onto block ranges with a single copy each. The traversal is SubtreeCoder's
/// (tiles that stay in L1), so the speed per sample does not drop as boxes grow; its tables are
/// built once per sample size and kept, so many small cells cost what their samples do. A box can
/// also be cut into 2^split smaller subtrees, which threads encode at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "hzio/hz/bitmask.h"
#include "hzio/hz/subtree_coder.h"
#include "hzio/util/box.h"

namespace hzio {

class ThreadPool;  // util/thread_pool.h

class BoxEncoder {
 public:
  /// For boxes of `box_size` samples per axis (powers of two, aligned to multiples of it), each
  /// encoded as 2^split subtrees (as many as its size allows; their runs are the same samples at the
  /// same addresses as the one subtree's: the split only cuts the work into pieces for threads).
  BoxEncoder(const Bitmask& bitmask, const Point& box_size, int split = 0);

  /// Number of trailing pattern positions forming the largest subtree that fits a box.
  int subtree_bits() const { return bits_; }
  /// The extent of that subtree: Encode() reads only such subtrees that meet `keep`, so only `keep`
  /// rounded out to multiples of this (whatever the split).
  const Point& subtree_size() const { return subtree_size_; }
  /// The split a pool of `threads` threads wants: a few subtrees per thread, so that they share a
  /// box evenly even where a round of the writer takes only part of it; 0 for one thread.
  static int SplitFor(int threads);

  /// Encodes `data` (row-major over `box`, `sample_bytes` per sample) into `sink`, which is called
  /// with (hz, count) for a piece of a run, in any order (RunResolver), and returns memory for its
  /// first n samples (a span with null data skips them). Subtrees with no sample in `keep` (the
  /// dataset box) are skipped, and only the samples whose hz is in `range` are read and handed out
  /// (the parallel writer's round: a round costs what it holds, SubtreeCoder::Encode). With `pool`,
  /// the subtrees are encoded by its threads and the caller's at once: `sink` must then be safe to
  /// call from several threads. Throws kInternal if `box` is not an aligned cell of this size.
  void Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep, const RunResolver& sink,
              const HzRange& range = {}, ThreadPool* pool = nullptr) const;

 private:
  // The coder of samples of `sample_bytes`, built on first use and kept: its tables cost as much as
  // encoding a small cell, and a writer encodes every cell of every field with one encoder.
  const SubtreeCoder& CoderFor(int64_t sample_bytes) const;

  Bitmask bitmask_;
  Point box_size_, subtree_size_, piece_size_, strides_;  // piece: a subtree of the split
  int bits_ = 0, piece_bits_ = 0;
  mutable std::mutex coders_mutex_;
  mutable std::map<int64_t, std::unique_ptr<const SubtreeCoder>> coders_;  // by sample size
};

}  // namespace hzio
