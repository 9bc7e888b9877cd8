// Golden vectors of the view planner for its JavaScript port (web/src/planner.js, tested by
// web/test/planner.test.js). The cases are generated here from the C++ planner; this test fails
// when tests/data/planner_vectors.json differs from what the planner produces now.
// Regenerate after an intended change: HZIO_UPDATE_GOLDEN=1 ./view_planner_test
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "hzio/hz/view_planner.h"

namespace hzio {
namespace {

const char* const kVectorsPath = HZIO_SOURCE_DIR "/tests/data/planner_vectors.json";

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string PointJson(const Point& p) {
  std::string s = "[";
  for (int d = 0; d < p.dims; ++d) s += (d ? "," : "") + std::to_string(p[d]);
  return s + "]";
}

std::string BoxJson(const Box& b) { return "[" + PointJson(b.p1) + "," + PointJson(b.p2) + "]"; }

template <typename Container>
std::string NumbersJson(const Container& values) {
  std::string s = "[";
  bool first = true;
  for (double v : values) {
    s += (first ? "" : ",") + Num(v);
    first = false;
  }
  return s + "]";
}

// A fixed-seed generator (PCG-style LCG) so the file is the same on every machine.
class Random {
 public:
  double Uniform(double lo, double hi) {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (hi - lo) * static_cast<double>(state_ >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t state_ = 0x5eed;
};

struct Case {
  std::string name;
  PlannerDataset dataset;
  PlannerView view;
};

struct DatasetSpec {
  std::string name;
  PlannerDataset dataset;
};

std::vector<DatasetSpec> Datasets() {
  return {
      {"2d-512", {Box({0, 0}, {512, 512}), {}, Bitmask::Parse("V010101010101010101")}},
      {"3d-64", {Box({0, 0, 0}, {64, 64, 64}), {}, Bitmask::Parse("V012012012012012012")}},
      {"3d-offset", {Box({8, 0, 4}, {40, 16, 12}), {-2, 2, 0, 1, 100, 101}, Bitmask::Parse("V00120120120120")}},
      {"2d-aniso", {Box({0, 0}, {256, 64}), {-1, 1, 10, 12}, Bitmask::Parse("V11111100000000")}},
      {"3d-512", {Box({0, 0, 0}, {512, 512, 512}), {}, Bitmask::Guess(Point{512, 512, 512})}},
      {"3d-flat", {Box({0, 0, 0}, {300, 200, 20}), {0, 3, 0, 2, 0, 0.1}, Bitmask::Guess(Point{300, 200, 20})}},
      {"1d-1024", {Box({0}, {1024}), {}, Bitmask::Parse("V0000000000")}},
  };
}

std::vector<Case> Cases() {
  Random rng;
  std::vector<Case> cases;
  for (const DatasetSpec& spec : Datasets()) {
    const PlannerDataset& ds = spec.dataset;
    const int dims = ds.logic_box.dims();
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < dims; ++d) {
      lo[d] = ds.physic_box.empty() ? static_cast<double>(ds.logic_box.p1[d]) : ds.physic_box[2 * d];
      hi[d] = ds.physic_box.empty() ? static_cast<double>(ds.logic_box.p2[d]) : ds.physic_box[2 * d + 1];
    }
    if (dims == 1) {  // give the camera a thin strip around the segment to frame
      lo[1] = -0.005 * (hi[0] - lo[0]);
      hi[1] = -lo[1];
    }
    const Vec3 center{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
    const double wx = hi[0] - lo[0], wy = hi[1] - lo[1];
    const double radius = std::sqrt(wx * wx + wy * wy + (hi[2] - lo[2]) * (hi[2] - lo[2])) / 2;
    auto add = [&](const std::string& what, const Mat4& mvp, int w, int h, double bias = 0) {
      cases.push_back({spec.name + "/" + what, ds, PlannerView{mvp, w, h, bias}});
    };
    auto top_down = [&](double x0, double x1, double y0, double y1, double z_near, double z_far) {
      const double eye = hi[2] + 10 * radius;
      return Multiply(Orthographic(x0, x1, y0, y1, eye - z_near, eye - z_far),
                      LookAt({0, 0, eye}, {0, 0, 0}, {0, 1, 0}));
    };
    const double zfar = lo[2] - radius, znear = hi[2] + radius;
    // Orthographic views down z: framing, zooms, pans, outside, biases.
    for (int px : {16, 100, 256, 512, 700}) add("ortho-frame-" + std::to_string(px), top_down(lo[0], hi[0], lo[1], hi[1], znear, zfar), px, px);
    for (double zoom : {2.0, 4.0, 16.0}) {
      const double cx = lo[0] + wx * rng.Uniform(0.2, 0.8), cy = lo[1] + wy * rng.Uniform(0.2, 0.8);
      const double hx = wx / zoom / 2, hy = wy / zoom / 2;
      add("ortho-zoom-" + Num(zoom), top_down(cx - hx, cx + hx, cy - hy, cy + hy, znear, zfar), 256, 192);
    }
    add("ortho-stretch-x", top_down(lo[0], lo[0] + wx / 2, lo[1], hi[1], znear, zfar), 128, 128);
    add("ortho-pan-out", top_down(lo[0] + 0.7 * wx, lo[0] + 1.7 * wx, lo[1] - 0.5 * wy, hi[1] - 0.5 * wy, znear, zfar), 300, 200);
    add("ortho-outside", top_down(hi[0] + 0.1 * wx, hi[0] + wx, lo[1], hi[1], znear, zfar), 200, 200);
    for (double bias : {-2.0, -1.0, 1.0, 2.0}) {
      add("ortho-bias-" + Num(bias), top_down(lo[0], hi[0], lo[1], hi[1], znear, zfar), 128, 128, bias);
    }
    add("ortho-cell-edges", top_down(lo[0] + wx * 0.1234, lo[0] + wx * 0.5678, lo[1] + wy * 0.25, lo[1] + wy * 0.75, znear, zfar), 77, 91);
    if (dims == 3) {
      const double wz = hi[2] - lo[2];
      for (double f : {0.0, 0.37, 0.5, 0.999}) {
        const double z = lo[2] + wz * f;
        const double eps = wz * 1e-4;
        add("slice-z-" + Num(f), top_down(lo[0], hi[0], lo[1], hi[1], z + eps, z - eps), 256, 256);
      }
      add("slice-beyond", top_down(lo[0], hi[0], lo[1], hi[1], hi[2] + 2 * wz, hi[2] + wz), 256, 256);
      // Side views along x and y.
      const double dist = 10 * radius;
      add("ortho-along-x", Multiply(Orthographic(-wy / 2, wy / 2, -wz / 2, wz / 2, 1, 2 * dist),
                                    LookAt({center[0] + dist, center[1], center[2]}, center, {0, 0, 1})), 128, 64);
      add("ortho-along-y", Multiply(Orthographic(-wx / 2, wx / 2, -wz / 2, wz / 2, 1, 2 * dist),
                                    LookAt({center[0], center[1] - dist, center[2]}, center, {0, 0, 1})), 200, 100);
    }
    // Perspective cameras from random directions and distances (some inside the data).
    for (int i = 0; i < 12; ++i) {
      const double theta = rng.Uniform(0, 2 * 3.141592653589793);
      const double cos_phi = dims == 3 ? rng.Uniform(-0.95, 0.95) : rng.Uniform(0.3, 0.99);
      const double sin_phi = std::sqrt(1 - cos_phi * cos_phi);
      const double distance = radius * (i < 2 ? rng.Uniform(0.05, 0.5) : rng.Uniform(1.2, 8));
      const Vec3 target{center[0] + 0.2 * wx * rng.Uniform(-1, 1), center[1] + 0.2 * wy * rng.Uniform(-1, 1), center[2]};
      const Vec3 eye{target[0] + distance * sin_phi * std::cos(theta), target[1] + distance * sin_phi * std::sin(theta),
                     target[2] + distance * cos_phi};
      const Vec3 up = std::abs(cos_phi) > 0.9 ? Vec3{0, 1, 0} : Vec3{0, 0, 1};
      const double fov = rng.Uniform(20, 80);
      const int w = static_cast<int>(rng.Uniform(64, 1200)), h = static_cast<int>(rng.Uniform(64, 900));
      const double near_plane = distance * rng.Uniform(0.01, 0.3);
      add("perspective-" + std::to_string(i),
          Multiply(Perspective(fov, static_cast<double>(w) / h, near_plane, distance + 4 * radius), LookAt(eye, target, up)),
          w, h, i % 4 == 3 ? 1.0 : 0.0);
    }
  }
  return cases;
}

std::string CaseJson(const Case& c) {
  const ViewPlan plan = PlanView(c.dataset, c.view);
  std::ostringstream s;
  s << "{\"name\":\"" << c.name << "\",\n   \"logic_box\":" << BoxJson(c.dataset.logic_box)
    << ",\"physic_box\":" << NumbersJson(c.dataset.physic_box) << ",\"bitmask\":\"" << c.dataset.bitmask.text()
    << "\",\n   \"mvp\":" << NumbersJson(c.view.mvp) << ",\n   \"viewport\":[" << c.view.viewport_width << ","
    << c.view.viewport_height << "],\"quality_bias\":" << Num(c.view.quality_bias) << ",\n   \"expected\":{\"visible\":"
    << (plan.visible ? "true" : "false") << ",\"box\":" << BoxJson(plan.box) << ",\"level\":" << plan.level
    << ",\"aligned_box\":" << BoxJson(plan.aligned_box)
    << ",\"pixels_per_sample\":" << NumbersJson(plan.pixels_per_sample) << "}}";
  return s.str();
}

std::string VectorsJson() {
  std::string out =
      "{\"generator\":\"tests/reader/hz/view_planner_golden_test.cpp (HZIO_UPDATE_GOLDEN=1 view_planner_test)\",\n"
      " \"conventions\":\"mvp row-major, clip = mvp * (x,y,z,1) in physic coordinates; boxes [p1,p2) in logic "
      "coordinates\",\n \"cases\":[\n  ";
  const auto cases = Cases();
  for (size_t i = 0; i < cases.size(); ++i) out += (i ? ",\n  " : "") + CaseJson(cases[i]);
  return out + "\n]}\n";
}

TEST(ViewPlannerGolden, CommittedVectorsMatchThePlanner) {
  const std::string now = VectorsJson();
  if (const char* update = std::getenv("HZIO_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(kVectorsPath, std::ios::binary) << now;
    GTEST_SKIP() << "rewrote " << kVectorsPath;
  }
  std::ifstream in(kVectorsPath, std::ios::binary);
  ASSERT_TRUE(in) << "missing " << kVectorsPath << "; create it with HZIO_UPDATE_GOLDEN=1";
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), now) << kVectorsPath << " is stale: regenerate with HZIO_UPDATE_GOLDEN=1 and review the diff";
}

TEST(ViewPlannerGolden, CasesCoverEveryKindOfOutcome) {
  // The vectors are only useful to the port if they exercise every branch.
  int invisible = 0, full = 0, coarse = 0, thin = 0, frustum_corner = 0;
  for (const Case& c : Cases()) {
    const ViewPlan plan = PlanView(c.dataset, c.view);
    if (!plan.visible) ++invisible;
    else if (plan.level == c.dataset.bitmask.maxh()) ++full;
    else ++coarse;
    if (plan.visible && c.dataset.logic_box.dims() == 3 && plan.box.Size()[2] == 1) ++thin;
    if (c.name.find("perspective-0") != std::string::npos && plan.visible) ++frustum_corner;
  }
  EXPECT_GE(invisible, 5);
  EXPECT_GE(full, 5);
  EXPECT_GE(coarse, 20);
  EXPECT_GE(thin, 4);
  EXPECT_GE(frustum_corner, 3);
}

}  // namespace
}  // namespace hzio
