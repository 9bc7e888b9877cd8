#include "hzio/util/box_copy.h"

#include <cstring>

namespace hzio {

void CopyRegion(const Box& src_box, const uint8_t* src, const Box& dst_box, uint8_t* dst,
                const Box& region, int64_t sample_bytes) {
  const int n = region.dims();
  if (region.Empty()) return;
  const Point ss = src_box.Size(), ds = dst_box.Size(), rs = region.Size();
  const int64_t row_bytes = rs[0] * sample_bytes;
  Point k(n);  // row index over axes 1..n-1
  for (;;) {
    int64_t so = 0, dof = 0;
    for (int d = n - 1; d >= 0; --d) {
      const int64_t c = region.p1[d] + (d == 0 ? 0 : k[d]);
      so = so * ss[d] + (c - src_box.p1[d]);
      dof = dof * ds[d] + (c - dst_box.p1[d]);
    }
    std::memcpy(dst + dof * sample_bytes, src + so * sample_bytes, static_cast<size_t>(row_bytes));
    int d = 1;
    for (; d < n; ++d) {
      if (++k[d] < rs[d]) break;
      k[d] = 0;
    }
    if (d >= n) break;
  }
}

void FillRegion(const Box& box, uint8_t* data, const Box& region, const std::vector<uint8_t>& sample) {
  const int n = region.dims();
  if (region.Empty()) return;
  const Point bs = box.Size(), rs = region.Size();
  const int64_t sb = static_cast<int64_t>(sample.size());
  Point k(n);  // row index over axes 1..n-1
  for (;;) {
    int64_t at = 0;
    for (int d = n - 1; d >= 0; --d) at = at * bs[d] + (region.p1[d] + (d == 0 ? 0 : k[d]) - box.p1[d]);
    FillWithSample(data + at * sb, rs[0], sample);
    int d = 1;
    for (; d < n; ++d) {
      if (++k[d] < rs[d]) break;
      k[d] = 0;
    }
    if (d >= n) break;
  }
}

void FillWithSample(uint8_t* out, int64_t count, const std::vector<uint8_t>& sample) {
  if (count <= 0) return;
  bool zero = true;
  for (uint8_t b : sample) zero = zero && b == 0;
  const size_t n = sample.size();
  if (zero) {
    std::memset(out, 0, static_cast<size_t>(count) * n);
    return;
  }
  for (int64_t i = 0; i < count; ++i) std::memcpy(out + static_cast<size_t>(i) * n, sample.data(), n);
}

}  // namespace hzio
