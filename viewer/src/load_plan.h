/// What the viewer loads for a view: from the shared planner's ViewPlan (design.md §6,
/// hz/view_planner.h) to a short coarse-to-fine sequence of box queries (idx-format.md §3.4), each
/// over the frustum-clipped box, the last at the planned level, all within a sample budget.
/// Pure functions, no Qt or VTK.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hzio/hz/block_layout.h"
#include "hzio/hz/view_planner.h"
#include "hzio/util/box.h"

namespace hzio::viewer {

/// One box query: levels 0..level over `box` (exclusive, inside the dataset).
struct LoadStep {
  Box box;
  int level = 0;
  bool operator==(const LoadStep& o) const { return box == o.box && level == o.level; }
};

struct LoadPolicy {
  std::optional<int> level_override;     // the user's --level / level box: no planning of H
  int64_t max_samples = int64_t{1} << 24;  // cap for planned levels (an override is not capped)
  int floor_level = 0;                   // levels at or below it are already shown (the overview)
  int max_coarse_steps = 2;              // coarse steps before the final one
};

/// Samples a query of levels 0..level over `box` returns.
int64_t SamplesAt(const BlockLayout& layout, const Box& box, int level);

/// The finest level whose whole-dataset query has at most `max_samples` samples: the overview
/// that is loaded first, gives the colour range, and backs every view.
int OverviewLevel(const BlockLayout& layout, const Box& dataset_box, int64_t max_samples);

/// The coarse-to-fine steps for `plan` (never empty when plan.visible; empty otherwise). The
/// final level is plan.level (or the override), lowered until its box fits max_samples; coarse
/// steps go down by `dims` levels at a time (an eighth of the samples in 3-D) and stop above
/// floor_level. Every step uses the planned box widened to its own level's grid.
std::vector<LoadStep> PlanLoadSteps(const BlockLayout& layout, const Box& dataset_box, const ViewPlan& plan,
                                    const LoadPolicy& policy);

/// `box` widened to the grid of levels 0..level (cells of the cumulative stride), clipped to the
/// dataset box: the region a query at that level really covers.
Box AlignToLevel(const Bitmask& bitmask, const Box& box, int level, const Box& dataset_box);

/// Whether what was loaded already shows `wanted`: it contains the box at the same level.
bool Covers(const LoadStep& loaded, const LoadStep& wanted);

}  // namespace hzio::viewer
