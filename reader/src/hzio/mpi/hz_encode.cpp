#include "hzio/mpi/hz_encode.h"

#include <bit>
#include <cstring>

#include "hzio/hz/hz_order.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

namespace {

template <int kBytes>
void Gather(uint8_t* out, const uint8_t* base, const int64_t* offsets, int64_t first, int64_t step, int64_t count) {
  for (int64_t j = 0; j < count; ++j) std::memcpy(out + j * kBytes, base + offsets[first + j * step] * kBytes, kBytes);
}

void GatherAny(uint8_t* out, const uint8_t* base, const int64_t* offsets, int64_t first, int64_t step, int64_t count,
               int64_t sb) {
  switch (sb) {
    case 1: return Gather<1>(out, base, offsets, first, step, count);
    case 2: return Gather<2>(out, base, offsets, first, step, count);
    case 4: return Gather<4>(out, base, offsets, first, step, count);
    case 8: return Gather<8>(out, base, offsets, first, step, count);
    default:
      if (sb % 8 == 0) {  // vector dtypes of 64-bit components: copy words, not a memcpy call per sample
        const int64_t words = sb / 8;
        for (int64_t j = 0; j < count; ++j) {
          const uint8_t* src = base + offsets[first + j * step] * sb;
          uint8_t* dst = out + j * sb;
          for (int64_t w = 0; w < words; ++w) std::memcpy(dst + 8 * w, src + 8 * w, 8);
        }
        return;
      }
      for (int64_t j = 0; j < count; ++j)
        std::memcpy(out + j * sb, base + offsets[first + j * step] * sb, static_cast<size_t>(sb));
  }
}

}  // namespace

HzEncoder::HzEncoder(const Bitmask& bitmask, const Point& box_size) : bitmask_(bitmask), box_size_(box_size) {
  const int n = bitmask.dims(), maxh = bitmask.maxh();
  // Longest suffix of the pattern whose per-axis counts fit the box, capped so the offset table
  // stays small (16 MiB) however large a rank's box is; bigger boxes are then several subtrees.
  constexpr int kMaxSubtreeBits = 21;
  while (bits_ < maxh && bits_ < kMaxSubtreeBits) {
    bool fits = true;
    for (int d = 0; d < n; ++d)
      if ((int64_t{1} << bitmask.Count(d, maxh - bits_, maxh)) > box_size[d]) fits = false;
    if (!fits) break;
    ++bits_;
  }
  subtree_size_ = Point(n);
  for (int d = 0; d < n; ++d) subtree_size_[d] = int64_t{1} << bitmask.Count(d, maxh - bits_ + 1, maxh);
  // In-subtree Z index i: bit (bits_-1-k) of i is pattern position maxh-bits_+1+k (§3.1).
  local_offset_.resize(size_t{1} << bits_);
  std::vector<int> axis_of_bit(static_cast<size_t>(bits_)), coord_bit(static_cast<size_t>(bits_));
  std::vector<int> used(static_cast<size_t>(n), 0);
  for (int i = maxh; i > maxh - bits_; --i) {  // right to left: coordinate bits from the LSB up
    const int b = maxh - i;                     // bit of the Z index
    axis_of_bit[static_cast<size_t>(b)] = bitmask.axis(i);
    coord_bit[static_cast<size_t>(b)] = used[static_cast<size_t>(bitmask.axis(i))]++;
  }
  // Offset of an index = sum of its set bits' contributions: build each entry from the entry
  // with its lowest set bit cleared.
  std::vector<int64_t> contribution(static_cast<size_t>(bits_));
  for (int b = 0; b < bits_; ++b) {
    int64_t stride = 1;
    for (int d = 0; d < axis_of_bit[static_cast<size_t>(b)]; ++d) stride *= box_size[d];
    contribution[static_cast<size_t>(b)] = stride << coord_bit[static_cast<size_t>(b)];
  }
  local_offset_[0] = 0;
  for (uint64_t z = 1; z < (uint64_t{1} << bits_); ++z)
    local_offset_[z] = local_offset_[z & (z - 1)] + contribution[static_cast<size_t>(std::countr_zero(z))];
}

void HzEncoder::Encode(const Box& box, const uint8_t* data, int64_t sample_bytes, const Box& keep,
                       const RunSink& sink) const {
  const int n = bitmask_.dims(), maxh = bitmask_.maxh();
  for (int d = 0; d < n; ++d)
    Check(box.p2[d] - box.p1[d] == box_size_[d] && box.p1[d] % box_size_[d] == 0, ErrorCode::kInternal,
          "HZ encoding: box " + box.ToRangesString() + " is not an aligned cell");
  // Gathers `count` samples of the subtree at `sub`, in-subtree indices first, first+step, ...
  const auto emit = [&](uint64_t hz, int64_t count, const uint8_t* sub, int64_t first, int64_t step) {
    while (count > 0) {
      const RunDestination dst = sink(hz, count);
      Check(dst.count >= 1 && dst.count <= count, ErrorCode::kInternal, "HZ encoding: bad run destination");
      GatherAny(dst.data, sub, local_offset_.data(), first, step, dst.count, sample_bytes);
      hz += static_cast<uint64_t>(dst.count);
      first += dst.count * step;
      count -= dst.count;
    }
  };

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
    for (int d = n - 1; d >= 0; --d) base = base * box_size_[d] + (o[d] - box.p1[d]);
    const uint8_t* sub = data + base * sample_bytes;
    const uint64_t z0 = bitmask_.Interleave(o);
    emit(HzFromZ(z0, maxh), 1, sub, 0, 1);  // the root sample (in-subtree index 0): a coarse level
    // Level maxh-t of the subtree: in-subtree indices with lowest set bit t, one contiguous hz run.
    for (int h = maxh - bits_ + 1; h <= maxh; ++h) {
      const int t = maxh - h;
      emit((z0 >> (t + 1)) + (uint64_t{1} << (h - 1)), int64_t{1} << (bits_ - t - 1), sub, int64_t{1} << t,
           int64_t{2} << t);
    }
  }
}

}  // namespace hzio::mpi
