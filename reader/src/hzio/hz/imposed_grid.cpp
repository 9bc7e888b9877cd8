#include "hzio/hz/imposed_grid.h"

#include <algorithm>
#include <bit>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

int64_t RoundUpPow2(int64_t v) { return v <= 1 ? 1 : static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(v))); }

RestructureSpec RestructureSpec::Parse(const std::string& text, int dims) {
  RestructureSpec spec;
  if (text.empty() || text == "default") return spec;
  if (text == "expanded") {
    spec.mode = Mode::kExpanded;
    return spec;
  }
  const std::vector<std::string> parts = Split(text, 'x');
  Check(static_cast<int>(parts.size()) == dims, ErrorCode::kInvalidArgument,
        "--restructure '" + text + "': expected default, expanded or " + std::to_string(dims) + " sizes AxBxC");
  spec.mode = Mode::kUser;
  spec.user_size = Point(dims);
  for (int d = 0; d < dims; ++d) {
    const int64_t v = ParseInt64(parts[static_cast<size_t>(d)], "--restructure size");
    Check(v >= 1 && std::has_single_bit(static_cast<uint64_t>(v)), ErrorCode::kInvalidArgument,
          "--restructure '" + text + "': every size must be a power of two");
    spec.user_size[d] = v;
  }
  return spec;
}

Point ImposedGrid::ChooseCellSize(const RestructureSpec& spec, const Point& max_rank_extent, const Bitmask& bitmask) {
  const int n = bitmask.dims();
  Point size(n, 1);
  for (int d = 0; d < n; ++d) {
    int64_t s = spec.mode == RestructureSpec::Mode::kUser ? spec.user_size[d] : RoundUpPow2(max_rank_extent[d]);
    if (spec.mode == RestructureSpec::Mode::kExpanded) s *= 2;
    size[d] = std::min(s, bitmask.pow2()[d]);
  }
  return size;
}

ImposedGrid::ImposedGrid(const Bitmask& bitmask, const Box& domain, Point cell_size)
    : domain_(domain), size_(cell_size), first_(domain.dims()), count_(domain.dims()) {
  for (int d = 0; d < domain.dims(); ++d) {
    size_[d] = std::min(RoundUpPow2(size_[d]), bitmask.pow2()[d]);
    first_[d] = domain.p1[d] / size_[d];
    count_[d] = (domain.p2[d] + size_[d] - 1) / size_[d] - first_[d];
  }
}

Box ImposedGrid::CellBox(int64_t id) const {
  Box b(Point(domain_.dims()), Point(domain_.dims()));
  for (int d = 0; d < domain_.dims(); ++d) {
    const int64_t c = first_[d] + id % count_[d];
    id /= count_[d];
    b.p1[d] = c * size_[d];
    b.p2[d] = b.p1[d] + size_[d];
  }
  return b;
}

std::vector<int64_t> ImposedGrid::CellsIntersecting(const Box& box) const {
  std::vector<int64_t> ids;
  const Box b = box.Intersect(domain_);
  if (b.Empty()) return ids;
  const int n = domain_.dims();
  Point lo(n), hi(n), c(n);
  for (int d = 0; d < n; ++d) {
    lo[d] = b.p1[d] / size_[d] - first_[d];
    hi[d] = (b.p2[d] - 1) / size_[d] - first_[d];
  }
  c = lo;
  for (;;) {
    int64_t id = 0;
    for (int d = n - 1; d >= 0; --d) id = id * count_[d] + c[d];
    ids.push_back(id);
    int d = 0;
    for (; d < n; ++d) {
      if (++c[d] <= hi[d]) break;
      c[d] = lo[d];
    }
    if (d == n) break;
  }
  return ids;
}

}  // namespace hzio
