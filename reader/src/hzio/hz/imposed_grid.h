/// The grid of power-of-two boxes that restructuring imposes on the domain (phase 1 of the
/// three-phase writer, PIDX-style). Cells are aligned to multiples of their size from the origin
/// of the HZ space, so each one is a union of whole HZ subtrees (idx-format.md §3.1) and encodes
/// into a few contiguous hz runs per level.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio {

/// How the restructuring box is chosen (design.md §3 `--restructure`).
struct RestructureSpec {
  enum class Mode { kDefault, kExpanded, kUser } mode = Mode::kDefault;
  Point user_size;  // kUser: the AxBxC box, each a power of two

  /// Parses "default", "expanded" or "AxBxC"; throws kInvalidArgument naming the text.
  static RestructureSpec Parse(const std::string& text, int dims);
};

/// Rounds up to a power of two (>= 1).
int64_t RoundUpPow2(int64_t v);

class ImposedGrid {
 public:
  /// `cell_size`: powers of two, clamped to the bitmask's padded extent.
  ImposedGrid(const Bitmask& bitmask, const Box& domain, Point cell_size);

  /// The cell size for a spec, given the largest per-rank extent (max over ranks and pieces of
  /// each axis' size): default rounds it up to a power of two, expanded doubles that.
  static Point ChooseCellSize(const RestructureSpec& spec, const Point& max_rank_extent, const Bitmask& bitmask);

  const Point& cell_size() const { return size_; }
  int64_t num_cells() const { return count_.Product(); }
  /// Full (unclipped) aligned box of a cell.
  Box CellBox(int64_t id) const;
  /// Ids of the cells a box intersects (box clipped to the domain first).
  std::vector<int64_t> CellsIntersecting(const Box& box) const;

 private:
  Box domain_;
  Point size_, first_, count_;  // cells first_ .. first_+count_-1 per axis cover the domain
};

}  // namespace hzio
