#include "hzio/hz/bitmask.h"

#include <algorithm>

#include "hzio/util/error.h"

namespace hzio {

Bitmask Bitmask::Parse(const std::string& text) { return Bitmask(text); }

Bitmask::Bitmask(std::string text) : text_(std::move(text)) {
  Check(!text_.empty() && (text_[0] == 'V' || text_[0] == 'F'), ErrorCode::kInvalidArgument,
        "bitmask '" + text_ + "' must start with V or F");
  maxh_ = static_cast<int>(text_.size()) - 1;
  Check(maxh_ >= 1, ErrorCode::kInvalidArgument, "bitmask '" + text_ + "' has no levels");
  Check(maxh_ <= kMaxBitmaskLevels, ErrorCode::kUnsupported,
        "bitmask '" + text_ + "' has " + std::to_string(maxh_) + " levels; at most " +
            std::to_string(kMaxBitmaskLevels) + " are supported");
  int max_axis = -1;
  for (int i = 1; i <= maxh_; ++i) {
    char c = text_[static_cast<size_t>(i)];
    Check(c >= '0' && c < '0' + kMaxDims, ErrorCode::kInvalidArgument,
          "bitmask '" + text_ + "' has an invalid axis digit '" + std::string(1, c) + "'");
    max_axis = std::max(max_axis, c - '0');
  }
  dims_ = max_axis + 1;
  pow2_ = Point(dims_, 1);
  coord_bit_.assign(static_cast<size_t>(maxh_ + 1), 0);
  std::vector<int> used(static_cast<size_t>(dims_), 0);
  for (int i = maxh_; i >= 1; --i) {
    int d = axis(i);
    coord_bit_[static_cast<size_t>(i)] = used[static_cast<size_t>(d)]++;
    pow2_[d] *= 2;
  }
}

Bitmask Bitmask::Guess(const Point& p2, char letter) {
  Point n(p2.dims);
  for (int d = 0; d < p2.dims; ++d) {
    Check(p2[d] >= 1, ErrorCode::kInvalidArgument, "cannot guess a bitmask for an empty box");
    int64_t v = 1;
    while (v < p2[d]) v *= 2;
    n[d] = v;
  }
  std::string pattern(1, letter);
  for (;;) {
    bool any = false;
    for (int d = 0; d < n.dims; ++d) {
      if (n[d] > 1) {
        pattern += static_cast<char>('0' + d);
        n[d] /= 2;
        any = true;
      }
    }
    if (!any) break;
  }
  Check(pattern.size() > 1, ErrorCode::kInvalidArgument,
        "cannot guess a bitmask for a single-sample box " + p2.ToString());
  return Bitmask(pattern);
}

int Bitmask::Count(int d, int i, int j) const {
  i = std::max(i, 1);
  j = std::min(j, maxh_);
  int c = 0;
  for (int k = i; k <= j; ++k)
    if (axis(k) == d) ++c;
  return c;
}

Point Bitmask::LevelStride(int h) const {
  Point s(dims_);
  for (int d = 0; d < dims_; ++d) s[d] = int64_t{1} << Count(d, h, maxh_);
  return s;
}

Point Bitmask::LevelOffset(int h) const {
  Point o(dims_);
  if (h >= 1) {
    int a = axis(h);
    o[a] = (int64_t{1} << Count(a, h, maxh_)) / 2;
  }
  return o;
}

Point Bitmask::CumulativeStride(int h) const {
  Point s(dims_);
  for (int d = 0; d < dims_; ++d) s[d] = int64_t{1} << Count(d, h + 1, maxh_);
  return s;
}

uint64_t Bitmask::Interleave(const Point& p) const {
  uint64_t z = 0;
  for (int i = 1; i <= maxh_; ++i) {
    uint64_t bit = (static_cast<uint64_t>(p[axis(i)]) >> coord_bit_[static_cast<size_t>(i)]) & 1u;
    z |= bit << (maxh_ - i);
  }
  return z;
}

Point Bitmask::Deinterleave(uint64_t z) const {
  Point p(dims_);
  for (int i = 1; i <= maxh_; ++i) {
    uint64_t bit = (z >> (maxh_ - i)) & 1u;
    p[axis(i)] |= static_cast<int64_t>(bit << coord_bit_[static_cast<size_t>(i)]);
  }
  return p;
}

}  // namespace hzio
