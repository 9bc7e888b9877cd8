/// A regular lattice of samples: origin + k ⊙ stride for 0 <= k < count (per axis). Level grids,
/// block grids (idx-format.md §4.1) and box-query result grids (§3.4) are all of this form, which
/// lets every copy between a block and a result be planned per axis instead of per sample.
#pragma once

#include <cstdint>

#include "hzio/util/box.h"

namespace hzio {

struct Grid {
  Point origin, stride, count;

  int dims() const { return origin.dims; }
  int64_t NumSamples() const { return count.Product(); }
  /// [origin, origin + count ⊙ stride): OpenVisus's logic box of the grid.
  Box LogicBox() const;
  bool operator==(const Grid& o) const {
    return origin == o.origin && stride == o.stride && count == o.count;
  }
};

/// How one axis of a source grid maps onto one axis of a destination grid: source index
/// src_first + m*src_step lands at destination index dst_first + m*dst_step, for m < count.
struct AxisCopy {
  int64_t src_first = 0, src_step = 1, dst_first = 0, dst_step = 1, count = 0;
};

/// Plans the copy of the samples that `src` and `dst` have in common (same positions), restricted
/// to positions inside `clip`. Strides must be powers of two. Returns false if nothing is shared.
bool PlanGridCopy(const Grid& src, const Grid& dst, const Box& clip, AxisCopy (&plan)[kMaxDims]);

}  // namespace hzio
