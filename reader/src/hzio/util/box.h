/// Integer points and boxes in logic (sample) coordinates. A Box is [p1, p2) with an exclusive
/// upper corner, as every internal computation in idx-format.md uses; the inclusive text forms
/// (.idx `(box)`, HTTP `box=`) are converted at the edges. Axis 0 is x (fastest varying).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hzio {

inline constexpr int kMaxDims = 5;

/// A point with `dims` meaningful axes; axes beyond `dims` are 0.
struct Point {
  int dims = 0;
  std::array<int64_t, kMaxDims> v{};

  Point() = default;
  explicit Point(int n, int64_t fill = 0) : dims(n) { for (int d = 0; d < n; ++d) v[d] = fill; }
  Point(std::initializer_list<int64_t> values);

  int64_t& operator[](int d) { return v[d]; }
  int64_t operator[](int d) const { return v[d]; }
  bool operator==(const Point& o) const;
  /// Product of the components (number of samples of a grid with these counts).
  int64_t Product() const;
  std::string ToString() const;  // "(x,y,z)"
};

struct Box {
  Point p1, p2;  // p2 exclusive

  Box() = default;
  Box(Point a, Point b) : p1(a), p2(b) {}
  int dims() const { return p1.dims; }
  bool Empty() const;
  Point Size() const;
  bool Contains(const Point& p) const;
  Box Intersect(const Box& o) const;
  bool operator==(const Box& o) const { return p1 == o.p1 && p2 == o.p2; }

  /// Parses "x0:x1,y0:y1[,z0:z1]" (exclusive upper bounds, the CLI form of design.md §3).
  static Box ParseRanges(const std::string& text);
  /// Parses "x1 x2 y1 y2 ..." with inclusive upper bounds (the .idx / HTTP form) into `dims` axes:
  /// extra pairs are dropped, missing pairs become 0..0 (idx-format.md §1.2).
  static Box ParseInclusive(const std::string& text, int dims);
  std::string ToInclusiveString() const;  // "x1 x2 y1 y2", inclusive
  std::string ToRangesString() const;     // "x0:x1,y0:y1"
};

}  // namespace hzio
