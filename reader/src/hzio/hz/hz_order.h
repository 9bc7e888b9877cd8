/// HZ addresses (idx-format.md §3.2): the Z address with a sentinel bit, ordering samples level by
/// level. Level 0 is hz 0; level h >= 1 holds hz in [2^(h-1), 2^h).
#pragma once

#include <bit>
#include <cstdint>

#include "hzio/hz/bitmask.h"

namespace hzio {

/// Level of an HZ address: its bit length.
inline int HzLevel(uint64_t hz) { return hz == 0 ? 0 : static_cast<int>(std::bit_width(hz)); }

inline uint64_t HzFromZ(uint64_t z, int maxh) {
  if (z == 0) return 0;
  int t = std::countr_zero(z);
  return (z >> (t + 1)) + (uint64_t{1} << (maxh - t - 1));
}

inline uint64_t ZFromHz(uint64_t hz, int maxh) {
  if (hz == 0) return 0;
  int h = HzLevel(hz);
  return ((2 * (hz - (uint64_t{1} << (h - 1))) + 1) << (maxh - h));
}

inline uint64_t HzFromPoint(const Bitmask& bm, const Point& p) {
  return HzFromZ(bm.Interleave(p), bm.maxh());
}

inline Point PointFromHz(const Bitmask& bm, uint64_t hz) {
  return bm.Deinterleave(ZFromHz(hz, bm.maxh()));
}

}  // namespace hzio
