#include "hzio/hz/view_planner.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "hzio/util/error.h"

// web/src/planner.js is a line-by-line port of this file: the golden vectors in
// tests/data/planner_vectors.json must come out identical, so keep the floating-point operations
// (and their order) in step with it when changing either.

namespace hzio {
namespace {

using Vec4 = std::array<double, 4>;
using Polygon = std::vector<Vec3>;

// Tolerances shared with the JavaScript port.
constexpr double kSnap = 1e-9;        // logic coordinates this close to an integer snap to it
constexpr double kLevelSlack = 1e-9;  // "at most one pixel" tolerates rounding in the matrix

// Per-axis mapping between continuous logic and physic coordinates (idx-format.md §1.2).
struct AxisMap {
  double logic_first = 0, logic_size = 0;    // L1, number of samples
  double physic_first = 0, physic_size = 0;  // P1, Psize
};

double Dot(const Vec4& plane, const Vec3& p) {
  return plane[0] * p[0] + plane[1] * p[1] + plane[2] * p[2] + plane[3];
}

// One Sutherland–Hodgman pass: keeps the part of `poly` where Dot(plane, p) >= 0.
Polygon ClipPolygon(const Polygon& poly, const Vec4& plane) {
  Polygon out;
  const size_t n = poly.size();
  for (size_t i = 0; i < n; ++i) {
    const Vec3& a = poly[i];
    const Vec3& b = poly[(i + 1) % n];
    const double da = Dot(plane, a);
    const double db = Dot(plane, b);
    if (da >= 0) out.push_back(a);
    if ((da >= 0) != (db >= 0)) {
      const double t = da / (da - db);
      out.push_back({a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2])});
    }
  }
  return out;
}

// The six half-spaces -w <= x, y, z <= w as planes over physic points.
std::array<Vec4, 6> FrustumPlanes(const Mat4& m) {
  std::array<Vec4, 6> planes{};
  for (int axis = 0; axis < 3; ++axis) {
    for (int c = 0; c < 4; ++c) {
      planes[2 * axis][c] = m[12 + c] + m[4 * axis + c];
      planes[2 * axis + 1][c] = m[12 + c] - m[4 * axis + c];
    }
  }
  return planes;
}

// The boundary of the dataset's physic box as polygons: 6 faces in 3-D, the rectangle in 2-D,
// the segment in 1-D.
std::vector<Polygon> BoxPolygons(const std::array<AxisMap, 3>& axes, int dims) {
  Vec3 lo{}, hi{};
  for (int d = 0; d < 3; ++d) {
    lo[d] = axes[d].physic_first;
    hi[d] = axes[d].physic_first + axes[d].physic_size;
  }
  if (dims == 1) return {{lo, hi}};
  if (dims == 2) return {{{lo[0], lo[1], 0}, {hi[0], lo[1], 0}, {hi[0], hi[1], 0}, {lo[0], hi[1], 0}}};
  std::vector<Polygon> faces;
  for (int d = 0; d < 3; ++d) {
    const int u = (d + 1) % 3, v = (d + 2) % 3;
    for (const double side : {lo[d], hi[d]}) {
      Polygon face(4);
      const double us[4] = {lo[u], hi[u], hi[u], lo[u]};
      const double vs[4] = {lo[v], lo[v], hi[v], hi[v]};
      for (int k = 0; k < 4; ++k) {
        face[k][d] = side;
        face[k][u] = us[k];
        face[k][v] = vs[k];
      }
      faces.push_back(face);
    }
  }
  return faces;
}

// Corners of the view frustum that lie inside the (3-D) physic box: vertices of the visible
// region when the camera is inside or close to the data.
void AddFrustumCornersInsideBox(const Mat4& mvp, const std::array<AxisMap, 3>& axes,
                                std::vector<Vec3>& points) {
  Mat4 inv;
  if (!Invert(mvp, inv)) return;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec4 ndc{(corner & 1) ? 1.0 : -1.0, (corner & 2) ? 1.0 : -1.0, (corner & 4) ? 1.0 : -1.0, 1.0};
    Vec4 h{};
    for (int r = 0; r < 4; ++r) {
      h[r] = inv[4 * r] * ndc[0] + inv[4 * r + 1] * ndc[1] + inv[4 * r + 2] * ndc[2] + inv[4 * r + 3] * ndc[3];
    }
    if (!(h[3] > 1e-300)) continue;  // at infinity or behind the eye
    const Vec3 p{h[0] / h[3], h[1] / h[3], h[2] / h[3]};
    bool inside = true;
    for (int d = 0; d < 3; ++d) {
      const double lo = axes[d].physic_first, hi = axes[d].physic_first + axes[d].physic_size;
      const double slack = kSnap * std::max(1.0, std::abs(hi - lo));
      if (!(p[d] >= lo - slack && p[d] <= hi + slack)) inside = false;
    }
    if (inside) points.push_back(p);
  }
}

// Pixels moved on screen per physic unit along each axis at point p (the projection's Jacobian).
// Returns false for points on or behind the eye plane.
bool PixelsPerPhysicUnit(const Mat4& m, const Vec3& p, int width, int height, std::array<double, 3>& out) {
  Vec4 c{};
  for (int r = 0; r < 4; ++r) c[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
  const double w = c[3];
  if (!(w > 0)) return false;
  const double half_w = width / 2.0, half_h = height / 2.0;
  for (int d = 0; d < 3; ++d) {
    const double sx = (m[d] * w - c[0] * m[12 + d]) / (w * w) * half_w;
    const double sy = (m[4 + d] * w - c[1] * m[12 + d]) / (w * w) * half_h;
    out[d] = std::sqrt(sx * sx + sy * sy);
  }
  return true;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void Validate(const PlannerDataset& dataset, const PlannerView& view) {
  const int dims = dataset.logic_box.dims();
  Check(dims >= 1 && dims <= 3, ErrorCode::kInvalidArgument,
        "view planner: datasets with 1 to 3 axes are supported, got " + std::to_string(dims));
  Check(dataset.bitmask.dims() == dims, ErrorCode::kInvalidArgument,
        "view planner: bitmask " + dataset.bitmask.text() + " has " + std::to_string(dataset.bitmask.dims()) +
            " axes but the logic box has " + std::to_string(dims));
  Check(!dataset.logic_box.Empty(), ErrorCode::kInvalidArgument, "view planner: empty logic box");
  Check(dataset.physic_box.empty() || dataset.physic_box.size() == static_cast<size_t>(2 * dims),
        ErrorCode::kInvalidArgument,
        "view planner: physic box needs " + std::to_string(2 * dims) + " numbers, got " +
            std::to_string(dataset.physic_box.size()));
  for (size_t i = 0; i + 1 < dataset.physic_box.size(); i += 2) {
    Check(std::isfinite(dataset.physic_box[i]) && std::isfinite(dataset.physic_box[i + 1]) &&
              dataset.physic_box[i + 1] > dataset.physic_box[i],
          ErrorCode::kInvalidArgument,
          "view planner: physic box axis " + std::to_string(i / 2) + " is empty or not finite");
  }
  Check(view.viewport_width > 0 && view.viewport_height > 0, ErrorCode::kInvalidArgument,
        "view planner: viewport must be positive, got " + std::to_string(view.viewport_width) + "x" +
            std::to_string(view.viewport_height));
  for (double v : view.mvp) {
    Check(std::isfinite(v), ErrorCode::kInvalidArgument, "view planner: the MVP matrix is not finite");
  }
  Check(std::isfinite(view.quality_bias), ErrorCode::kInvalidArgument,
        "view planner: quality bias is not finite");
}

}  // namespace

int LevelForPixelsPerSample(const Bitmask& bitmask, const std::array<double, 3>& pixels_per_sample,
                            double max_pixels) {
  const double limit = max_pixels * (1 + kLevelSlack);
  const int dims = std::min(bitmask.dims(), 3);
  for (int h = 0; h <= bitmask.maxh(); ++h) {
    const Point stride = bitmask.CumulativeStride(h);
    bool fine_enough = true;
    for (int d = 0; d < dims; ++d) {
      if (pixels_per_sample[d] > 0 && static_cast<double>(stride[d]) * pixels_per_sample[d] > limit) {
        fine_enough = false;
      }
    }
    if (fine_enough) return h;
  }
  return bitmask.maxh();
}

ViewPlan PlanView(const PlannerDataset& dataset, const PlannerView& view) {
  Validate(dataset, view);
  const int dims = dataset.logic_box.dims();
  std::array<AxisMap, 3> axes{};
  for (int d = 0; d < dims; ++d) {
    AxisMap& a = axes[d];
    a.logic_first = static_cast<double>(dataset.logic_box.p1[d]);
    a.logic_size = static_cast<double>(dataset.logic_box.p2[d] - dataset.logic_box.p1[d]);
    a.physic_first = dataset.physic_box.empty() ? a.logic_first : dataset.physic_box[2 * d];
    a.physic_size = dataset.physic_box.empty() ? a.logic_size : dataset.physic_box[2 * d + 1] - dataset.physic_box[2 * d];
  }

  // Vertices of (physic box ∩ frustum): every vertex lies on a box face (found by clipping the
  // faces) or is a frustum corner inside the box.
  std::vector<Vec3> points;
  const auto planes = FrustumPlanes(view.mvp);
  for (Polygon poly : BoxPolygons(axes, dims)) {
    for (const Vec4& plane : planes) {
      if (poly.empty()) break;
      poly = ClipPolygon(poly, plane);
    }
    points.insert(points.end(), poly.begin(), poly.end());
  }
  if (dims == 3) AddFrustumCornersInsideBox(view.mvp, axes, points);

  ViewPlan plan;
  plan.box = Box(dataset.logic_box.p1, dataset.logic_box.p1);
  plan.aligned_box = plan.box;
  if (points.empty()) return plan;
  plan.visible = true;

  // Tight logic box: the sample cells [i, i+1) the visible region touches.
  for (int d = 0; d < dims; ++d) {
    const AxisMap& a = axes[d];
    double lo = points[0][d], hi = points[0][d];
    for (const Vec3& p : points) {
      lo = std::min(lo, p[d]);
      hi = std::max(hi, p[d]);
    }
    const double scale = a.logic_size / a.physic_size;
    const double u0 = a.logic_first + (lo - a.physic_first) * scale;
    const double u1 = a.logic_first + (hi - a.physic_first) * scale;
    const double snap = kSnap * a.logic_size;
    const int64_t first = dataset.logic_box.p1[d], end = dataset.logic_box.p2[d];
    int64_t i0 = static_cast<int64_t>(std::floor(u0 + snap));
    int64_t i1 = static_cast<int64_t>(std::ceil(u1 - snap));
    i0 = std::clamp(i0, first, end - 1);
    i1 = std::clamp(std::max(i1, i0 + 1), first + 1, end);
    plan.box.p1[d] = i0;
    plan.box.p2[d] = i1;
  }

  // Projected size of one sample step, worst case over the visible region's vertices.
  for (const Vec3& p : points) {
    std::array<double, 3> per_unit{};
    if (!PixelsPerPhysicUnit(view.mvp, p, view.viewport_width, view.viewport_height, per_unit)) continue;
    for (int d = 0; d < dims; ++d) {
      const double per_sample = per_unit[d] * (axes[d].physic_size / axes[d].logic_size);
      plan.pixels_per_sample[d] = std::max(plan.pixels_per_sample[d], per_sample);
    }
  }
  for (int d = 0; d < dims; ++d) {
    if (plan.box.p2[d] - plan.box.p1[d] < 2) plan.pixels_per_sample[d] = 0;  // one sample: no spacing
  }

  plan.level = LevelForPixelsPerSample(dataset.bitmask, plan.pixels_per_sample, std::pow(2.0, -view.quality_bias));

  const Point stride = dataset.bitmask.CumulativeStride(plan.level);
  plan.aligned_box = plan.box;
  for (int d = 0; d < dims; ++d) {
    const int64_t s = stride[d];
    const int64_t a1 = FloorDiv(plan.box.p1[d], s) * s;
    const int64_t a2 = FloorDiv(plan.box.p2[d] + s - 1, s) * s;
    plan.aligned_box.p1[d] = std::max(a1, dataset.logic_box.p1[d]);
    plan.aligned_box.p2[d] = std::min(a2, dataset.logic_box.p2[d]);
  }
  return plan;
}

Mat4 Multiply(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      r[4 * i + j] = a[4 * i] * b[j] + a[4 * i + 1] * b[4 + j] + a[4 * i + 2] * b[8 + j] + a[4 * i + 3] * b[12 + j];
    }
  }
  return r;
}

Mat4 LookAt(const Vec3& eye, const Vec3& center, const Vec3& up) {
  auto normalize = [](Vec3 v) {
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    Check(n > 0, ErrorCode::kInvalidArgument, "LookAt: degenerate eye/center/up");
    return Vec3{v[0] / n, v[1] / n, v[2] / n};
  };
  auto cross = [](const Vec3& a, const Vec3& b) {
    return Vec3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  const Vec3 f = normalize({center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]});
  const Vec3 s = normalize(cross(f, up));
  const Vec3 u = cross(s, f);
  return {s[0], s[1], s[2], -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
          u[0], u[1], u[2], -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
          -f[0], -f[1], -f[2], f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2],
          0, 0, 0, 1};
}

Mat4 Perspective(double fovy_degrees, double aspect, double near_plane, double far_plane) {
  const double f = 1.0 / std::tan(fovy_degrees * 3.141592653589793 / 360.0);
  const double nf = 1.0 / (near_plane - far_plane);
  return {f / aspect, 0, 0, 0,
          0, f, 0, 0,
          0, 0, (far_plane + near_plane) * nf, 2 * far_plane * near_plane * nf,
          0, 0, -1, 0};
}

Mat4 Orthographic(double left, double right, double bottom, double top, double near_plane, double far_plane) {
  return {2 / (right - left), 0, 0, -(right + left) / (right - left),
          0, 2 / (top - bottom), 0, -(top + bottom) / (top - bottom),
          0, 0, -2 / (far_plane - near_plane), -(far_plane + near_plane) / (far_plane - near_plane),
          0, 0, 0, 1};
}

bool Invert(const Mat4& m, Mat4& inv) {
  // Cofactor expansion with 2x2 sub-determinants (the layout gl-matrix and MESA use).
  const double b00 = m[0] * m[5] - m[1] * m[4], b01 = m[0] * m[6] - m[2] * m[4];
  const double b02 = m[0] * m[7] - m[3] * m[4], b03 = m[1] * m[6] - m[2] * m[5];
  const double b04 = m[1] * m[7] - m[3] * m[5], b05 = m[2] * m[7] - m[3] * m[6];
  const double b06 = m[8] * m[13] - m[9] * m[12], b07 = m[8] * m[14] - m[10] * m[12];
  const double b08 = m[8] * m[15] - m[11] * m[12], b09 = m[9] * m[14] - m[10] * m[13];
  const double b10 = m[9] * m[15] - m[11] * m[13], b11 = m[10] * m[15] - m[11] * m[14];
  const double det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  if (det == 0 || !std::isfinite(det)) return false;
  const double id = 1.0 / det;
  inv = {(m[5] * b11 - m[6] * b10 + m[7] * b09) * id, (m[2] * b10 - m[1] * b11 - m[3] * b09) * id,
         (m[13] * b05 - m[14] * b04 + m[15] * b03) * id, (m[10] * b04 - m[9] * b05 - m[11] * b03) * id,
         (m[6] * b08 - m[4] * b11 - m[7] * b07) * id, (m[0] * b11 - m[2] * b08 + m[3] * b07) * id,
         (m[14] * b02 - m[12] * b05 - m[15] * b01) * id, (m[8] * b05 - m[10] * b02 + m[11] * b01) * id,
         (m[4] * b10 - m[5] * b08 + m[7] * b06) * id, (m[1] * b08 - m[0] * b10 - m[3] * b06) * id,
         (m[12] * b04 - m[13] * b02 + m[15] * b00) * id, (m[9] * b02 - m[8] * b04 - m[11] * b00) * id,
         (m[5] * b07 - m[4] * b09 - m[6] * b06) * id, (m[0] * b09 - m[1] * b07 + m[2] * b06) * id,
         (m[13] * b01 - m[12] * b03 - m[14] * b00) * id, (m[8] * b03 - m[9] * b01 + m[10] * b00) * id};
  return true;
}

}  // namespace hzio
