#include "hzio/util/box.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

Point::Point(std::initializer_list<int64_t> values) : dims(static_cast<int>(values.size())) {
  Check(dims <= kMaxDims, ErrorCode::kInvalidArgument, "too many axes");
  int d = 0;
  for (int64_t x : values) v[d++] = x;
}

bool Point::operator==(const Point& o) const {
  if (dims != o.dims) return false;
  for (int d = 0; d < dims; ++d)
    if (v[d] != o.v[d]) return false;
  return true;
}

int64_t Point::Product() const {
  int64_t p = 1;
  for (int d = 0; d < dims; ++d) p *= v[d];
  return p;
}

std::string Point::ToString() const {
  std::string s = "(";
  for (int d = 0; d < dims; ++d) s += (d ? "," : "") + std::to_string(v[d]);
  return s + ")";
}

bool Box::Empty() const {
  if (dims() == 0) return true;
  for (int d = 0; d < dims(); ++d)
    if (p2[d] <= p1[d]) return true;
  return false;
}

Point Box::Size() const {
  Point s(dims());
  for (int d = 0; d < dims(); ++d) s[d] = std::max<int64_t>(0, p2[d] - p1[d]);
  return s;
}

bool Box::Contains(const Point& p) const {
  for (int d = 0; d < dims(); ++d)
    if (p[d] < p1[d] || p[d] >= p2[d]) return false;
  return true;
}

Box Box::Intersect(const Box& o) const {
  Box r = *this;
  for (int d = 0; d < dims(); ++d) {
    r.p1[d] = std::max(p1[d], o.p1[d]);
    r.p2[d] = std::min(p2[d], o.p2[d]);
  }
  return r;
}

Box Box::ParseRanges(const std::string& text) {
  std::vector<std::string> axes = Split(text, ',');
  Check(!axes.empty() && axes.size() <= static_cast<size_t>(kMaxDims), ErrorCode::kInvalidArgument,
        "box '" + text + "': expected x0:x1,y0:y1[,z0:z1]");
  Box b{Point(static_cast<int>(axes.size())), Point(static_cast<int>(axes.size()))};
  for (size_t d = 0; d < axes.size(); ++d) {
    std::vector<std::string> ends = Split(axes[d], ':');
    Check(ends.size() == 2, ErrorCode::kInvalidArgument,
          "box '" + text + "': axis " + std::to_string(d) + " must be lo:hi");
    b.p1[static_cast<int>(d)] = ParseInt64(ends[0], "box lower bound");
    b.p2[static_cast<int>(d)] = ParseInt64(ends[1], "box upper bound");
    Check(b.p2[static_cast<int>(d)] > b.p1[static_cast<int>(d)], ErrorCode::kInvalidArgument,
          "box '" + text + "': axis " + std::to_string(d) + " is empty (upper bound is exclusive)");
  }
  return b;
}

Box Box::ParseInclusive(const std::string& text, int dims) {
  std::vector<std::string> tokens = SplitWhitespace(text);
  Check(tokens.size() % 2 == 0, ErrorCode::kInvalidArgument,
        "box '" + text + "': expected pairs of inclusive bounds");
  Box b{Point(dims), Point(dims)};
  for (int d = 0; d < dims; ++d) {
    const size_t i = 2 * static_cast<size_t>(d);
    if (i + 1 < tokens.size()) {
      b.p1[d] = ParseInt64(tokens[i], "box");
      b.p2[d] = ParseInt64(tokens[i + 1], "box") + 1;
    } else {
      b.p1[d] = 0;
      b.p2[d] = 1;
    }
  }
  return b;
}

std::string Box::ToInclusiveString() const {
  std::string s;
  for (int d = 0; d < dims(); ++d)
    s += (d ? " " : "") + std::to_string(p1[d]) + " " + std::to_string(p2[d] - 1);
  return s;
}

std::string Box::ToRangesString() const {
  std::string s;
  for (int d = 0; d < dims(); ++d)
    s += (d ? "," : "") + std::to_string(p1[d]) + ":" + std::to_string(p2[d]);
  return s;
}

}  // namespace hzio
