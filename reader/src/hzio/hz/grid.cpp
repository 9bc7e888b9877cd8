#include "hzio/hz/grid.h"

#include <algorithm>

namespace hzio {

Box Grid::LogicBox() const {
  Box b{origin, origin};
  for (int d = 0; d < dims(); ++d) b.p2[d] = origin[d] + count[d] * stride[d];
  return b;
}

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// Positions shared by the lattices a0 + i*as (i < an) and b0 + j*bs (j < bn) inside [lo, hi].
bool PlanAxis(int64_t a0, int64_t as, int64_t an, int64_t b0, int64_t bs, int64_t bn, int64_t lo,
              int64_t hi, AxisCopy& out) {
  const int64_t fine = std::min(as, bs), coarse = std::max(as, bs);
  // Power-of-two strides: the lattices meet only if they agree modulo the finer stride, and then
  // they share every point of the coarser one's lattice that lies on the other.
  if (((a0 - b0) % fine + fine) % fine != 0) return false;
  const int64_t anchor = as >= bs ? a0 : b0;
  lo = std::max({lo, a0, b0});
  hi = std::min({hi, a0 + (an - 1) * as, b0 + (bn - 1) * bs});
  if (lo > hi) return false;
  const int64_t first = anchor + CeilDiv(lo - anchor, coarse) * coarse;
  if (first > hi) return false;
  out.count = (hi - first) / coarse + 1;
  out.src_first = (first - a0) / as;
  out.src_step = coarse / as;
  out.dst_first = (first - b0) / bs;
  out.dst_step = coarse / bs;
  return true;
}

}  // namespace

bool PlanGridCopy(const Grid& src, const Grid& dst, const Box& clip, AxisCopy (&plan)[kMaxDims]) {
  for (int d = 0; d < src.dims(); ++d) {
    if (src.count[d] <= 0 || dst.count[d] <= 0) return false;
    if (!PlanAxis(src.origin[d], src.stride[d], src.count[d], dst.origin[d], dst.stride[d],
                  dst.count[d], clip.p1[d], clip.p2[d] - 1, plan[d]))
      return false;
  }
  for (int d = src.dims(); d < kMaxDims; ++d) plan[d] = AxisCopy{0, 1, 0, 1, 1};
  return true;
}

}  // namespace hzio
