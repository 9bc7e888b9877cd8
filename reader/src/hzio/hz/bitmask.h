/// The IDX bitmask (idx-format.md §2.1, §3): the pattern `V0120...` that orders the padded
/// power-of-two lattice into the HZ hierarchy. Position i (1..maxh) of the pattern names the axis
/// split at level i; position 1 is the coarsest. Also the §3.1 Z-order interleave.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/util/box.h"

namespace hzio {

/// Largest supported maxh: HZ addresses are held in uint64.
inline constexpr int kMaxBitmaskLevels = 62;

class Bitmask {
 public:
  Bitmask() = default;
  /// Parses "V0101..." (or "F..."); throws kInvalidArgument naming the text when malformed.
  static Bitmask Parse(const std::string& text);
  /// The default OpenVisus guess (§2.1) for a box whose exclusive upper corner is `p2`.
  static Bitmask Guess(const Point& p2, char letter = 'V');

  const std::string& text() const { return text_; }
  char letter() const { return text_.empty() ? 'V' : text_[0]; }
  int maxh() const { return maxh_; }
  int dims() const { return dims_; }
  /// Axis split at pattern position `i` (1..maxh).
  int axis(int i) const { return text_[static_cast<size_t>(i)] - '0'; }
  /// Padded power-of-two extent per axis (`pow2` in §0).
  const Point& pow2() const { return pow2_; }
  Box PaddedBox() const { return Box(Point(dims_), pow2_); }

  /// Number of positions k in [i, j] (inclusive, clamped to 1..maxh) with axis(k) == d.
  int Count(int d, int i, int j) const;
  /// Stride of level h's own samples (§3.3 delta_h), h >= 1.
  Point LevelStride(int h) const;
  /// Offset of level h's first sample (§3.3 offset_h), h >= 1; level 0 is the origin.
  Point LevelOffset(int h) const;
  /// Stride of the cumulative grid of levels 0..h (§3.3 D_h).
  Point CumulativeStride(int h) const;

  /// Z address of a point (§3.1). The point must lie inside the padded box.
  uint64_t Interleave(const Point& p) const;
  Point Deinterleave(uint64_t z) const;

  bool operator==(const Bitmask& o) const { return text_ == o.text_; }

 private:
  explicit Bitmask(std::string text);

  std::string text_;
  int maxh_ = 0;
  int dims_ = 0;
  Point pow2_;
  // For each pattern position i: the bit of the axis coordinate it carries (§3.1).
  std::vector<int> coord_bit_;
};

}  // namespace hzio
