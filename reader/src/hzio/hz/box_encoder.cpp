#include "hzio/hz/box_encoder.h"

#include "hzio/util/error.h"

namespace hzio {

BoxEncoder::BoxEncoder(const Bitmask& bitmask, const Point& box_size)
    : bitmask_(bitmask),
      box_size_(box_size),
      bits_(SubtreeCoder::FittingBits(bitmask, bitmask.maxh(), box_size)) {
  const int n = bitmask.dims();
  subtree_size_ = Point(n, 1);
  for (int d = 0; d < n && bits_ > 0; ++d)
    subtree_size_[d] = int64_t{1} << bitmask.Count(d, bitmask.maxh() - bits_ + 1, bitmask.maxh());
  strides_ = Point(n, 1);
  for (int d = 1; d < n; ++d) strides_[d] = strides_[d - 1] * box_size[d - 1];
}

const SubtreeCoder& BoxEncoder::CoderFor(int64_t sample_bytes) const {
  const std::lock_guard<std::mutex> lock(coders_mutex_);
  std::unique_ptr<const SubtreeCoder>& coder = coders_[sample_bytes];
  if (!coder) coder = std::make_unique<const SubtreeCoder>(bitmask_, bitmask_.maxh(), bits_, strides_, sample_bytes);
  return *coder;
}

void BoxEncoder::Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep,
                        const RunResolver& sink, const HzRange& range) const {
  const int n = bitmask_.dims();
  for (int d = 0; d < n; ++d)
    Check(box.p2[d] - box.p1[d] == box_size_[d] && box.p1[d] % box_size_[d] == 0, ErrorCode::kInternal,
          "HZ encoding: box " + box.ToRangesString() + " is not an aligned cell of " + box_size_.ToString());
  const SubtreeCoder& coder = CoderFor(sample_bytes);
  Point per(n);
  for (int d = 0; d < n; ++d) per[d] = box_size_[d] / subtree_size_[d];
  const int64_t subtrees = per.Product();
  for (int64_t s = 0; s < subtrees; ++s) {
    Point o(n);
    int64_t r = s;
    for (int d = 0; d < n; ++d) {
      o[d] = box.p1[d] + (r % per[d]) * subtree_size_[d];
      r /= per[d];
    }
    Box st(o, o);
    for (int d = 0; d < n; ++d) st.p2[d] = o[d] + subtree_size_[d];
    if (st.Intersect(keep).Empty()) continue;
    int64_t base = 0;
    for (int d = 0; d < n; ++d) base += (o[d] - box.p1[d]) * strides_[d];
    coder.Encode(o, data + base * sample_bytes, sink, range);
  }
}

}  // namespace hzio
