/// The view-dependent planner (design.md §6), shared by the desktop viewer, the VisIt plugin and
/// (as a line-by-line JavaScript port, web/src/planner.js) the web viewer: from a camera's
/// model-view-projection matrix and a viewport, which part of a dataset to load and at which
/// resolution level.
///
/// Coordinates. The camera looks at *physic* coordinates. A sample at integer logic coordinate i
/// covers the continuous logic interval [i, i+1), and continuous logic u maps to physic
/// P1 + (u - L1) * Psize / Lsize (idx-format.md §1.2, Lsize = number of samples), so the physic box
/// is exactly the union of the sample cells. 2-D datasets lie in the z = 0 plane; axes beyond the
/// dataset's are 0.
///
/// Matrices are 4x4, row-major (element (r, c) at m[4*r + c]) and map a column vector:
/// clip = M * (x, y, z, 1). OpenGL clip conventions: visible iff -w <= x, y, z <= w.
///
/// Level. The result grid of levels 0..H has stride D_H (idx-format.md §3.3, §3.4). The plan
/// picks the smallest H for which, on every visible axis, D_H samples project to at most
/// 2^-quality_bias pixels anywhere in the visible region; one level less would exceed it. An axis
/// is visible when the visible region spans at least two samples along it and moving along it
/// moves the image.
#pragma once

#include <array>
#include <vector>

#include "hzio/hz/bitmask.h"
#include "hzio/util/box.h"

namespace hzio {

/// Row-major 4x4 matrix (see the header paragraph).
using Mat4 = std::array<double, 16>;
using Vec3 = std::array<double, 3>;

/// Everything about the dataset that the planner needs.
struct PlannerDataset {
  Box logic_box;                 // exclusive upper corner, 1..3 axes
  std::vector<double> physic_box;  // x1 x2 y1 y2 ...; empty = the logic box
  Bitmask bitmask;
};

/// The camera and the screen.
struct PlannerView {
  Mat4 mvp{};                    // physic -> clip
  int viewport_width = 0;        // pixels
  int viewport_height = 0;
  double quality_bias = 0;       // +1: samples at most 1/2 pixel apart (finer), -1: 2 pixels
};

struct ViewPlan {
  bool visible = false;  // false: nothing of the dataset is inside the frustum
  Box box;               // tight logic box of the visible part, clipped to the dataset
  int level = 0;         // H: load levels 0..H
  Box aligned_box;       // `box` widened to level H's grid (cells of D_H), clipped to the dataset
  /// Largest projected size, in pixels, of one full-resolution sample step along x, y, z
  /// inside the visible region; 0 for axes that are not visible.
  std::array<double, 3> pixels_per_sample{};
};

/// The plan for one view. Throws kInvalidArgument naming the bad input (viewport not positive,
/// physic box of the wrong size or empty, non-finite matrix, more than 3 axes).
ViewPlan PlanView(const PlannerDataset& dataset, const PlannerView& view);

/// The smallest level at which every axis's cumulative stride times its pixels-per-sample is at
/// most `max_pixels` (axes with 0 pixels-per-sample never constrain). The core of PlanView.
int LevelForPixelsPerSample(const Bitmask& bitmask, const std::array<double, 3>& pixels_per_sample,
                            double max_pixels);

// OpenGL-style camera helpers (row-major results), for callers and tests.
Mat4 Multiply(const Mat4& a, const Mat4& b);
Mat4 LookAt(const Vec3& eye, const Vec3& center, const Vec3& up);
Mat4 Perspective(double fovy_degrees, double aspect, double near_plane, double far_plane);
Mat4 Orthographic(double left, double right, double bottom, double top, double near_plane,
                  double far_plane);
/// Inverse of `m`; returns false when `m` is singular.
bool Invert(const Mat4& m, Mat4& inverse);

}  // namespace hzio
