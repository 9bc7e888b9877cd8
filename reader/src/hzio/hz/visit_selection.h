/// VisIt's multiresolution data selection mapped onto the view planner (design.md §6): the values
/// VisIt's engine puts in an `avtMultiresSelection` (composite projection transform, viewport,
/// window size, view area, desired extents, desired cell area) become a PlannerView, and the plan
/// comes back as what the VisIt plugin reads (a logic box aligned to level H's grid, idx-format.md
/// §3.3/§3.4) plus what it reports to VisIt (actual extents and cell size), so that VisIt asks for a
/// new read only when the view leaves the loaded region or needs finer cells. Plain numbers only:
/// no VisIt types, so this is unit-tested without VisIt.
///
/// VisIt's conventions (VisIt 3.4, engine/main/NetworkManager.C, avt/View/avtView{2D,3D}.C,
/// viewer/core/ViewerPlotList.C::ShouldRefineData):
/// * transform: vtkCamera::GetCompositeProjectionTransformMatrix(aspect, -1, 1) copied row-major,
///   world -> OpenGL clip coordinates; exactly the planner's Mat4. All entries DBL_MAX = no view.
/// * viewport: 2-D views draw into the window fraction [v0,v1] x [v2,v3] (0..1) and the transform
///   maps the world window onto that fraction; 3-D views use the whole window (VisIt leaves the
///   3-D viewport unset).
/// * desired cell area: the largest cell size VisIt wants, as a fraction of sqrt(view area)
///   (default 0.002); VisIt refines when actual cell size / sqrt(view area) exceeds it, or when the
///   view extents leave the actual extents.
#pragma once

#include <array>
#include <optional>

#include "hzio/hz/view_planner.h"

namespace hzio {

/// The values of an avtMultiresSelection (see the header paragraph). Defaults mean "unset".
struct VisitMultiresValues {
  std::array<double, 16> transform;       // row-major world -> clip; any non-finite / DBL_MAX: unset
  std::array<double, 6> viewport;         // 2-D window fraction x0 x1 y0 y1 (z0 z1 ignored)
  int window_width = 0, window_height = 0;  // pixels
  double view_area;                       // world area of the view plane
  std::array<double, 6> desired_extents;  // world AABB of the view frustum: x0 x1 y0 y1 z0 z1
  double desired_cell_area;               // wanted cell size / sqrt(view area)

  /// Everything unset (DBL_MAX, as VisIt marks an invalid view).
  VisitMultiresValues();
};

/// What the plugin reads and what it reports back.
struct VisitSelectionPlan {
  bool from_camera = false;  // planned from the transform (else from desired extents / defaults)
  bool visible = true;       // false: the view sees none of the dataset (box is the coarsest cell)
  Box box;                   // logic box to read, aligned to level H's grid, clipped to the dataset
  int level = 0;             // H: read levels 0..H
  double max_pixels_per_sample = 1;  // the planner's limit derived from the desired cell area
  /// Physic extents of `box` (x0 x1 y0 y1 z0 z1); sides reaching the dataset's edge are -DBL_MAX /
  /// DBL_MAX so that panning beyond the data never asks VisIt to refine. Unused axes are 0 0.
  std::array<double, 6> actual_extents{};
  /// Largest physic edge of one level-H cell over the dataset's axes (VisIt's "actual cell area").
  double actual_cell_size = 0;
};

/// Maps one selection onto the planner. `default_level` is used when neither the transform nor
/// the view area / desired cell area say anything. Throws kInvalidArgument naming a bad value
/// (negative window, inverted viewport, default level outside 0..maxh, or the planner's own
/// checks on the dataset).
VisitSelectionPlan PlanVisitSelection(const PlannerDataset& dataset, const VisitMultiresValues& values,
                                      int default_level);

/// How PlanFixedLevel treats an explicit box.
enum class FixedBox {
  kAlignToLevel,  // widen to whole level-H cells, so the cells cover the box (views)
  kAsGiven,       // keep it (clipped to the dataset): the level-H samples inside it, as `hzio read --box`
};

/// The plan for a fixed level (avtResolutionSelection, or the plugin's read options): the whole
/// dataset, or `box` when given (see FixedBox). Throws kOutOfRange for a level outside 0..maxh or
/// a box outside the dataset.
VisitSelectionPlan PlanFixedLevel(const PlannerDataset& dataset, int level, const std::optional<Box>& box = {},
                                  FixedBox mode = FixedBox::kAlignToLevel);

/// The finest level whose grid over `box` holds at most `max_samples` samples (at least level 0):
/// the plugin's default when VisIt sends no selection.
int LevelForSampleBudget(const Bitmask& bitmask, const Box& box, int64_t max_samples);

/// Number of samples of level H's cumulative grid inside `box` (idx-format.md §3.3).
int64_t SamplesAtLevel(const Bitmask& bitmask, const Box& box, int level);

}  // namespace hzio
