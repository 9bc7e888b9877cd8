#include "hzio/hz/visit_selection.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "hzio/util/error.h"

namespace hzio {
namespace {

bool IsSet(double v) { return std::isfinite(v) && std::abs(v) < DBL_MAX; }

bool TransformIsSet(const std::array<double, 16>& m) {
  bool any_nonzero = false;
  for (double v : m) {
    if (!IsSet(v)) return false;
    any_nonzero = any_nonzero || v != 0;
  }
  return any_nonzero;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t CeilDiv(int64_t a, int64_t b) { return -FloorDiv(-a, b); }

// Physic coordinate of continuous logic coordinate u on axis d (idx-format.md §1.2).
double Physic(const PlannerDataset& ds, int d, double u) {
  const double l1 = static_cast<double>(ds.logic_box.p1[d]);
  const double lsize = static_cast<double>(ds.logic_box.p2[d] - ds.logic_box.p1[d]);
  if (ds.physic_box.empty()) return u;
  const double p1 = ds.physic_box[2 * d], psize = ds.physic_box[2 * d + 1] - ds.physic_box[2 * d];
  return p1 + (u - l1) * psize / lsize;
}

double PhysicPerSample(const PlannerDataset& ds, int d) {
  return Physic(ds, d, static_cast<double>(ds.logic_box.p1[d]) + 1) -
         Physic(ds, d, static_cast<double>(ds.logic_box.p1[d]));
}

// `box` widened to level h's grid (cells of D_h), clipped to the dataset.
Box AlignToLevel(const PlannerDataset& ds, const Box& box, int h) {
  const Point stride = ds.bitmask.CumulativeStride(h);
  Box aligned = box;
  for (int d = 0; d < box.dims(); ++d) {
    const int64_t s = stride[d];
    aligned.p1[d] = std::max(FloorDiv(box.p1[d], s) * s, ds.logic_box.p1[d]);
    aligned.p2[d] = std::min(CeilDiv(box.p2[d], s) * s, ds.logic_box.p2[d]);
  }
  return aligned;
}

// Fills the values VisIt reads back: extents of the box, open at the dataset's edges, and the
// largest physic edge of one level-H cell.
void Report(const PlannerDataset& ds, VisitSelectionPlan& plan) {
  const int dims = ds.logic_box.dims();
  const Point stride = ds.bitmask.CumulativeStride(plan.level);
  plan.actual_extents.fill(0);
  plan.actual_cell_size = 0;
  for (int d = 0; d < dims; ++d) {
    plan.actual_extents[2 * d] = plan.box.p1[d] <= ds.logic_box.p1[d]
                                     ? -DBL_MAX
                                     : Physic(ds, d, static_cast<double>(plan.box.p1[d]));
    plan.actual_extents[2 * d + 1] = plan.box.p2[d] >= ds.logic_box.p2[d]
                                         ? DBL_MAX
                                         : Physic(ds, d, static_cast<double>(plan.box.p2[d]));
    const int64_t extent = ds.logic_box.p2[d] - ds.logic_box.p1[d];
    const double cell = static_cast<double>(std::min(stride[d], extent)) * std::abs(PhysicPerSample(ds, d));
    plan.actual_cell_size = std::max(plan.actual_cell_size, cell);
  }
}

// The coarsest level whose cells (largest physic edge over the axes) are at most `max_cell`.
int LevelForCellSize(const PlannerDataset& ds, double max_cell) {
  const int dims = ds.logic_box.dims();
  for (int h = 0; h <= ds.bitmask.maxh(); ++h) {
    const Point stride = ds.bitmask.CumulativeStride(h);
    double cell = 0;
    for (int d = 0; d < dims; ++d) {
      const int64_t extent = ds.logic_box.p2[d] - ds.logic_box.p1[d];
      cell = std::max(cell, static_cast<double>(std::min(stride[d], extent)) * std::abs(PhysicPerSample(ds, d)));
    }
    if (cell <= max_cell * (1 + 1e-9)) return h;
  }
  return ds.bitmask.maxh();
}

// The logic box covering the physic extents `e` (x0 x1 y0 y1 z0 z1), clipped to the dataset;
// nullopt when the extents are unset or miss the dataset.
std::optional<Box> BoxFromExtents(const PlannerDataset& ds, const std::array<double, 6>& e) {
  Box box = ds.logic_box;
  for (int d = 0; d < ds.logic_box.dims() && d < 3; ++d) {
    const double lo = e[2 * d], hi = e[2 * d + 1];
    if (!IsSet(lo) || !IsSet(hi) || hi < lo) return std::nullopt;
    // Inverse of Physic(): logic u for physic p.
    const double l1 = static_cast<double>(ds.logic_box.p1[d]);
    const double per = PhysicPerSample(ds, d);
    const double p1 = Physic(ds, d, l1);
    const double u_lo = l1 + (lo - p1) / per, u_hi = l1 + (hi - p1) / per;
    const double a = std::min(u_lo, u_hi), b = std::max(u_lo, u_hi);
    const int64_t first = ds.logic_box.p1[d], end = ds.logic_box.p2[d];
    if (b < static_cast<double>(first) || a > static_cast<double>(end)) return std::nullopt;
    int64_t i0 = static_cast<int64_t>(std::floor(std::max(a, static_cast<double>(first))));
    int64_t i1 = static_cast<int64_t>(std::ceil(std::min(b, static_cast<double>(end))));
    i0 = std::clamp(i0, first, end - 1);
    i1 = std::clamp(std::max(i1, i0 + 1), first + 1, end);
    box.p1[d] = i0;
    box.p2[d] = i1;
  }
  return box;
}

void ValidateValues(const PlannerDataset& ds, const VisitMultiresValues& v, int default_level) {
  Check(v.window_width >= 0 && v.window_height >= 0, ErrorCode::kInvalidArgument,
        "VisIt selection: window size " + std::to_string(v.window_width) + "x" + std::to_string(v.window_height) +
            " is negative");
  Check(default_level >= 0 && default_level <= ds.bitmask.maxh(), ErrorCode::kInvalidArgument,
        "VisIt selection: default level " + std::to_string(default_level) + " is outside 0.." +
            std::to_string(ds.bitmask.maxh()));
  if (IsSet(v.viewport[0]) && IsSet(v.viewport[1]) && IsSet(v.viewport[2]) && IsSet(v.viewport[3])) {
    Check(v.viewport[1] > v.viewport[0] && v.viewport[3] > v.viewport[2], ErrorCode::kInvalidArgument,
          "VisIt selection: viewport [" + std::to_string(v.viewport[0]) + "," + std::to_string(v.viewport[1]) +
              "]x[" + std::to_string(v.viewport[2]) + "," + std::to_string(v.viewport[3]) + "] is empty or inverted");
  }
}

}  // namespace

VisitMultiresValues::VisitMultiresValues() {
  transform.fill(DBL_MAX);
  viewport.fill(DBL_MAX);
  view_area = DBL_MAX;
  desired_extents.fill(DBL_MAX);
  desired_cell_area = DBL_MAX;
}

int64_t SamplesAtLevel(const Bitmask& bitmask, const Box& box, int level) {
  const Point stride = bitmask.CumulativeStride(level);
  int64_t n = 1;
  for (int d = 0; d < box.dims(); ++d) {
    // Level-H samples sit at multiples of D_H (idx-format.md §3.3).
    const int64_t count = CeilDiv(box.p2[d], stride[d]) - CeilDiv(box.p1[d], stride[d]);
    if (count <= 0) return 0;
    n *= count;
  }
  return n;
}

int LevelForSampleBudget(const Bitmask& bitmask, const Box& box, int64_t max_samples) {
  int best = 0;
  for (int h = 0; h <= bitmask.maxh(); ++h) {
    if (SamplesAtLevel(bitmask, box, h) <= max_samples) best = h;
    else break;  // sample counts only grow with the level
  }
  return best;
}

VisitSelectionPlan PlanFixedLevel(const PlannerDataset& dataset, int level, const std::optional<Box>& box,
                                  FixedBox mode) {
  Check(level >= 0 && level <= dataset.bitmask.maxh(), ErrorCode::kOutOfRange,
        "VisIt resolution: level " + std::to_string(level) + " is outside 0.." +
            std::to_string(dataset.bitmask.maxh()));
  VisitSelectionPlan plan;
  plan.level = level;
  Box wanted = dataset.logic_box;
  if (box) {
    Check(box->dims() == dataset.logic_box.dims(), ErrorCode::kInvalidArgument,
          "VisIt read option box " + box->ToRangesString() + " has " + std::to_string(box->dims()) +
              " axes, the dataset has " + std::to_string(dataset.logic_box.dims()));
    wanted = box->Intersect(dataset.logic_box);
    Check(!wanted.Empty(), ErrorCode::kOutOfRange,
          "VisIt read option box " + box->ToRangesString() + " is outside the dataset box " +
              dataset.logic_box.ToRangesString());
  }
  plan.box = mode == FixedBox::kAsGiven ? wanted : AlignToLevel(dataset, wanted, level);
  Report(dataset, plan);
  return plan;
}

VisitSelectionPlan PlanVisitSelection(const PlannerDataset& dataset, const VisitMultiresValues& values,
                                      int default_level) {
  ValidateValues(dataset, values, default_level);
  const int dims = dataset.logic_box.dims();
  const bool have_cell_area = IsSet(values.desired_cell_area) && values.desired_cell_area > 0;

  if (TransformIsSet(values.transform) && values.window_width > 0 && values.window_height > 0) {
    // Pixels covered by the transform's clip square: the 2-D viewport fraction, else the window.
    double width = values.window_width, height = values.window_height;
    const auto& vp = values.viewport;
    if (dims <= 2 && IsSet(vp[0]) && IsSet(vp[1]) && IsSet(vp[2]) && IsSet(vp[3])) {
      width *= std::clamp(vp[1] - vp[0], 0.0, 1.0);
      height *= std::clamp(vp[3] - vp[2], 0.0, 1.0);
    }
    PlannerView view;
    std::copy(values.transform.begin(), values.transform.end(), view.mvp.begin());
    view.viewport_width = std::max(1, static_cast<int>(std::lround(width)));
    view.viewport_height = std::max(1, static_cast<int>(std::lround(height)));
    // VisIt wants cells no larger than desired_cell_area * sqrt(view area) (world units), and
    // sqrt(view area) spans sqrt(width * height) pixels: the same bound in pixels per sample.
    double max_pixels = 1;
    if (have_cell_area) max_pixels = values.desired_cell_area * std::sqrt(static_cast<double>(view.viewport_width) *
                                                                          static_cast<double>(view.viewport_height));
    max_pixels = std::max(max_pixels, 1e-6);
    view.quality_bias = -std::log2(max_pixels);
    const ViewPlan vp_plan = PlanView(dataset, view);

    VisitSelectionPlan plan;
    plan.from_camera = true;
    plan.max_pixels_per_sample = max_pixels;
    plan.visible = vp_plan.visible;
    if (vp_plan.visible) {
      plan.level = vp_plan.level;
      plan.box = vp_plan.aligned_box;
    } else {
      // Nothing in view: the single coarsest sample, so VisIt still has a (tiny) mesh.
      plan.level = 0;
      Box first_sample(dataset.logic_box.p1, dataset.logic_box.p1);
      for (int d = 0; d < dims; ++d) first_sample.p2[d] = first_sample.p1[d] + 1;
      plan.box = AlignToLevel(dataset, first_sample, 0);
    }
    Report(dataset, plan);
    return plan;
  }

  // No camera: the desired extents (if any) give the box, the view area and desired cell area
  // (if any) give the level with VisIt's own criterion, else the default level.
  const std::optional<Box> wanted = BoxFromExtents(dataset, values.desired_extents);
  int level = default_level;
  if (have_cell_area && IsSet(values.view_area) && values.view_area > 0) {
    level = LevelForCellSize(dataset, values.desired_cell_area * std::sqrt(values.view_area));
  }
  return PlanFixedLevel(dataset, level, wanted);
}

}  // namespace hzio
