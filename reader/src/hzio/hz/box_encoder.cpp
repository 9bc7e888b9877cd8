#include "hzio/hz/box_encoder.h"

#include <algorithm>

#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// The extent of a subtree of the last `bits` pattern positions.
Point SubtreeExtent(const Bitmask& bitmask, int bits) {
  const int n = bitmask.dims();
  Point size(n, 1);
  for (int d = 0; d < n && bits > 0; ++d) size[d] = int64_t{1} << bitmask.Count(d, bitmask.maxh() - bits + 1, bitmask.maxh());
  return size;
}

}  // namespace

BoxEncoder::BoxEncoder(const Bitmask& bitmask, const Point& box_size, int split)
    : bitmask_(bitmask),
      box_size_(box_size),
      bits_(SubtreeCoder::FittingBits(bitmask, bitmask.maxh(), box_size)),
      piece_bits_(std::max(0, bits_ - std::max(split, 0))) {
  subtree_size_ = SubtreeExtent(bitmask, bits_);
  piece_size_ = SubtreeExtent(bitmask, piece_bits_);
  const int n = bitmask.dims();
  strides_ = Point(n, 1);
  for (int d = 1; d < n; ++d) strides_[d] = strides_[d - 1] * box_size[d - 1];
}

int BoxEncoder::SplitFor(int threads) {
  int split = 0;
  while (threads > 1 && (1 << split) < 4 * threads) ++split;
  return split;
}

const SubtreeCoder& BoxEncoder::CoderFor(int64_t sample_bytes) const {
  const std::lock_guard<std::mutex> lock(coders_mutex_);
  std::unique_ptr<const SubtreeCoder>& coder = coders_[sample_bytes];
  if (!coder)
    coder = std::make_unique<const SubtreeCoder>(bitmask_, bitmask_.maxh(), piece_bits_, strides_, sample_bytes);
  return *coder;
}

void BoxEncoder::Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep,
                        const RunResolver& sink, const HzRange& range, ThreadPool* pool) const {
  const int n = bitmask_.dims();
  for (int d = 0; d < n; ++d)
    Check(box.p2[d] - box.p1[d] == box_size_[d] && box.p1[d] % box_size_[d] == 0, ErrorCode::kInternal,
          "HZ encoding: box " + box.ToRangesString() + " is not an aligned cell of " + box_size_.ToString());
  const SubtreeCoder& coder = CoderFor(sample_bytes);
  Point per(n);
  for (int d = 0; d < n; ++d) per[d] = box_size_[d] / piece_size_[d];
  const auto encode = [&](int64_t s) {
    Point o(n);
    int64_t r = s;
    for (int d = 0; d < n; ++d) {
      o[d] = box.p1[d] + (r % per[d]) * piece_size_[d];
      r /= per[d];
    }
    // Skipped by the whole subtree it is part of, as without the split (the writer counts on the
    // samples it encodes: CellPlan::touched).
    Box st(o, o);
    for (int d = 0; d < n; ++d) {
      st.p1[d] = o[d] / subtree_size_[d] * subtree_size_[d];
      st.p2[d] = st.p1[d] + subtree_size_[d];
    }
    if (st.Intersect(keep).Empty()) return;
    int64_t base = 0;
    for (int d = 0; d < n; ++d) base += (o[d] - box.p1[d]) * strides_[d];
    coder.Encode(o, data + base * sample_bytes, sink, range);
  };
  const int64_t pieces = per.Product();
  if (pool && pieces > 1) return pool->ParallelFor(pieces, encode);
  for (int64_t s = 0; s < pieces; ++s) encode(s);
}

}  // namespace hzio
