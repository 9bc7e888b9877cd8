// The view planner (design.md §6) on analytic cameras: every expectation below is worked out by
// hand from the camera, not by re-running the planner's own arithmetic.
#include "hzio/hz/view_planner.h"

#include <gtest/gtest.h>

#include <cmath>

#include "hzio/util/error.h"

namespace hzio {
namespace {

PlannerDataset MakeDataset(Box logic, std::string bitmask, std::vector<double> physic = {}) {
  return PlannerDataset{std::move(logic), std::move(physic), Bitmask::Parse(bitmask)};
}

// Orthographic camera looking down -z at the physic rectangle [x0,x1]x[y0,y1], with the near and
// far planes at z = z_far .. z_near (physic), i.e. eye at z = 1000.
Mat4 TopDown(double x0, double x1, double y0, double y1, double z_near = 1e6, double z_far = -1e6) {
  const Mat4 view = LookAt({0, 0, 1000}, {0, 0, 0}, {0, 1, 0});
  return Multiply(Orthographic(x0, x1, y0, y1, 1000 - z_near, 1000 - z_far), view);
}

ViewPlan Plan(const PlannerDataset& ds, const Mat4& mvp, int w, int h, double bias = 0) {
  return PlanView(ds, PlannerView{mvp, w, h, bias});
}

constexpr const char* k2D512 = "V010101010101010101";  // 512 x 512, maxh 18
constexpr const char* k3D64 = "V012012012012012012";   // 64^3, maxh 18

TEST(ViewPlanner, OrthographicOneSamplePerPixelIsFullResolution) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  ViewPlan plan = Plan(ds, TopDown(0, 512, 0, 512), 512, 512);
  ASSERT_TRUE(plan.visible);
  EXPECT_EQ(plan.box, Box({0, 0}, {512, 512}));
  EXPECT_EQ(plan.level, 18);
  EXPECT_NEAR(plan.pixels_per_sample[0], 1.0, 1e-12);
  EXPECT_NEAR(plan.pixels_per_sample[1], 1.0, 1e-12);
  EXPECT_EQ(plan.aligned_box, plan.box);
}

TEST(ViewPlanner, SmallerViewportDropsOneStepPerAxisPerHalving) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // 256 px for 512 samples: stride 2 on x and y, i.e. drop the last x and the last y split.
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 256, 256).level, 16);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 128, 128).level, 14);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 1, 1).level, 0);
  // 300 px: stride 2 would put 1.17 px between samples, too coarse: full resolution.
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 300, 300).level, 18);
}

TEST(ViewPlanner, ZoomAlongOneAxisMovesToTheNextSplitOfThatAxis) {
  // y splits first, then x: positions 1-6 are y, 7-14 are x. 256 x 64 samples.
  auto ds = MakeDataset(Box({0, 0}, {256, 64}), "V11111100000000");
  // 32 x 8 pixels for 256 x 64 samples: 1/8 px per sample on both axes -> strides 8 and 8:
  // y needs count(1, h+1..14) <= 3 -> h >= 3; x needs count(0, h+1..14) <= 3 -> h >= 11.
  EXPECT_EQ(Plan(ds, TopDown(0, 256, 0, 64), 32, 8).level, 11);
  // Stretch x by 2 (16 px wide): x stride 4 -> h = 12, one bitmask step on x.
  EXPECT_EQ(Plan(ds, TopDown(0, 128, 0, 64), 32, 8).level, 12);
  EXPECT_EQ(Plan(ds, TopDown(0, 64, 0, 64), 32, 8).level, 13);
  // Stretch y instead: y is not the binding axis, level stays at 11 until y needs more than x.
  EXPECT_EQ(Plan(ds, TopDown(0, 256, 0, 32), 32, 8).level, 11);
  // In the 3-D V012 pattern one more x split costs up to three levels: from h, the next '0'.
  auto cube = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  // x splits at 1,4,..,16, y at 2,5,..,17. Viewing down z at 16x16 px: x, y stride 4, i.e. at
  // most two x and two y splits after h: x needs h >= 10, y needs h >= 11.
  EXPECT_EQ(Plan(cube, TopDown(0, 64, 0, 64), 16, 16).level, 11);
  // Zoom x by 2: x stride 2, at most one x split after h (only 16): h >= 13.
  EXPECT_EQ(Plan(cube, TopDown(16, 48, 0, 64), 16, 16).level, 13);
}

TEST(ViewPlanner, ZoomShrinksTheBoxAndRefinesTheLevel) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  ViewPlan whole = Plan(ds, TopDown(0, 512, 0, 512), 128, 128);
  ViewPlan zoomed = Plan(ds, TopDown(128, 256, 64, 192), 128, 128);
  EXPECT_EQ(zoomed.box, Box({128, 64}, {256, 192}));
  EXPECT_EQ(whole.level, 14);
  EXPECT_EQ(zoomed.level, 18);  // 128 samples on 128 px
  EXPECT_EQ(zoomed.aligned_box, zoomed.box);
}

TEST(ViewPlanner, ViewOutsideTheDataIsEmpty) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  ViewPlan beside = Plan(ds, TopDown(600, 700, 0, 100), 100, 100);
  EXPECT_FALSE(beside.visible);
  EXPECT_TRUE(beside.box.Empty());
  EXPECT_TRUE(beside.aligned_box.Empty());
  // A perspective camera looking away from a cube.
  auto cube = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  Mat4 away = Multiply(Perspective(60, 1, 0.1, 1000), LookAt({32, 32, 200}, {32, 32, 400}, {0, 1, 0}));
  EXPECT_FALSE(Plan(cube, away, 200, 200).visible);
  // Near and far planes that end before the data.
  EXPECT_FALSE(Plan(cube, TopDown(0, 64, 0, 64, 200, 100), 64, 64).visible);
}

TEST(ViewPlanner, PanningClipsTheBoxToTheData) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  ViewPlan plan = Plan(ds, TopDown(400, 656, -100, 156), 256, 256);
  EXPECT_EQ(plan.box, Box({400, 0}, {512, 156}));
  EXPECT_EQ(plan.level, 18);
  // Boundaries that fall inside a sample cell include the whole cell.
  plan = Plan(ds, TopDown(10.5, 20.25, 30.75, 40), 10, 10);
  EXPECT_EQ(plan.box, Box({10, 30}, {21, 40}));
}

TEST(ViewPlanner, ThinSliceIsOneSampleThickAndItsNormalDoesNotConstrain) {
  auto cube = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  // Near/far at z = 10.6 .. 10.4: only sample cells z in [10, 11).
  ViewPlan plan = Plan(cube, TopDown(0, 64, 0, 64, 10.6, 10.4), 32, 32);
  ASSERT_TRUE(plan.visible);
  EXPECT_EQ(plan.box, Box({0, 0, 10}, {64, 64, 11}));
  EXPECT_EQ(plan.pixels_per_sample[2], 0.0);
  // x, y at stride 2: one x split (16) and one y split (17) after h -> h = 14; z is free.
  EXPECT_EQ(plan.level, 14);
  // Seen obliquely the slice's z direction moves pixels, but one sample thick it shows no spacing.
  Mat4 oblique = Multiply(Perspective(45, 1, 1, 1000), LookAt({32, -120, 160}, {32, 32, 10.5}, {0, 0, 1}));
  Mat4 slab = oblique;
  ViewPlan tilted = Plan(cube, slab, 256, 256);
  EXPECT_GT(tilted.pixels_per_sample[2], 0.0);
  auto slice = MakeDataset(Box({0, 0, 10}, {64, 64, 11}), k3D64);
  ViewPlan one = Plan(slice, oblique, 256, 256);
  ASSERT_TRUE(one.visible);
  EXPECT_EQ(one.box, Box({0, 0, 10}, {64, 64, 11}));
  EXPECT_EQ(one.pixels_per_sample[2], 0.0);
}

TEST(ViewPlanner, PerspectiveSpacingFallsWithDistance) {
  auto cube = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  // 90 degree field of view, 512 px: at eye distance d, one unit spans 256/d px.
  auto at = [&](double distance) {
    Mat4 mvp = Multiply(Perspective(90, 1, 1, 10000), LookAt({32, 32, 64 + distance}, {32, 32, 32}, {0, 1, 0}));
    return Plan(cube, mvp, 512, 512);
  };
  ViewPlan near = at(256), far = at(512), farther = at(1024);
  EXPECT_EQ(near.box, Box({0, 0, 0}, {64, 64, 64}));
  EXPECT_NEAR(near.pixels_per_sample[0], 1.0, 1e-9);
  EXPECT_NEAR(far.pixels_per_sample[0], 0.5, 1e-9);
  EXPECT_NEAR(far.pixels_per_sample[1], 0.5, 1e-9);
  // z steps seen from the front: at the front face's corner (32 off-axis) z moves 32*256/d^2 px.
  EXPECT_NEAR(near.pixels_per_sample[2], std::sqrt(2.0) * 32 * 256 / (256.0 * 256.0), 1e-9);
  // x, y at stride 1 (the last y split is 17); z at 0.18 px may keep stride 4 (split 18 unused).
  EXPECT_EQ(near.level, 17);
  // Twice as far: x and y at stride 2 -> h >= 14 (y split 17 left out); z at 0.044 px is free.
  EXPECT_EQ(far.level, 14);
  EXPECT_EQ(farther.level, 11);  // x, y at stride 4: splits 14 and 17 of y left out
}

TEST(ViewPlanner, CameraInsideTheDataSeesFromTheNearPlane) {
  auto cube = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  Mat4 mvp = Multiply(Perspective(60, 1, 0.5, 1000), LookAt({32, 32, 32}, {32, 32, 0}, {0, 1, 0}));
  ViewPlan plan = Plan(cube, mvp, 256, 256);
  ASSERT_TRUE(plan.visible);
  EXPECT_EQ(plan.box.p1[2], 0);
  EXPECT_EQ(plan.box.p2[2], 32);  // the near plane is at z = 31.5, inside cell 31
  // At z = 0 the 60 degree frustum is 2 * 32 * tan(30) = 36.95 wide: x in [13.52, 50.48].
  EXPECT_EQ(plan.box.p1[0], 13);
  EXPECT_EQ(plan.box.p2[0], 51);
  EXPECT_EQ(plan.level, 18);  // samples next to the eye are many pixels wide
}

TEST(ViewPlanner, AnisotropicPhysicBoxUsesSampleSpacingPerAxis) {
  // 256 x 64 samples over a physic square: an x sample is 1/4 of a y sample.
  auto ds = MakeDataset(Box({0, 0}, {256, 64}), "V11111100000000", {-1, 1, 10, 12});
  ViewPlan plan = Plan(ds, TopDown(-1, 1, 10, 12), 64, 64);
  EXPECT_EQ(plan.box, Box({0, 0}, {256, 64}));
  EXPECT_NEAR(plan.pixels_per_sample[0], 0.25, 1e-12);
  EXPECT_NEAR(plan.pixels_per_sample[1], 1.0, 1e-12);
  // y at stride 1 (h >= 6), x at stride 4 (count(0, h+1..14) <= 2 -> h >= 12).
  EXPECT_EQ(plan.level, 12);
  // Half of the physic square in x maps to half of the samples.
  plan = Plan(ds, TopDown(0, 1, 10, 11), 64, 64);
  EXPECT_EQ(plan.box, Box({128, 0}, {256, 32}));
}

TEST(ViewPlanner, NonCubicBoxWithOffsetOrigin) {
  // Logic box [8, 40) x [0, 16) x [4, 12) inside a 64x16x16 padded lattice, physic = logic.
  // Splits: x at 1,2,5,8,11,14; y at 3,6,9,12; z at 4,7,10,13.
  auto ds = MakeDataset(Box({8, 0, 4}, {40, 16, 12}), "V00120120120120");
  ViewPlan plan = Plan(ds, TopDown(20, 28, 2, 10), 4, 4);
  EXPECT_EQ(plan.box, Box({20, 2, 4}, {28, 10, 12}));
  EXPECT_NEAR(plan.pixels_per_sample[0], 0.5, 1e-12);
  // x, y at stride 2: at most one x split after h (14) -> h >= 11; one y split (12) -> h >= 9.
  EXPECT_EQ(plan.level, 11);
  EXPECT_EQ(plan.aligned_box, Box({20, 2, 4}, {28, 10, 12}));
  // Strides 2,2,2 at level 11: an odd box widens to the grid but stays inside the data.
  plan = Plan(ds, TopDown(9, 17, 1, 9), 4, 4);
  EXPECT_EQ(plan.box, Box({9, 1, 4}, {17, 9, 12}));
  EXPECT_EQ(plan.level, 11);
  EXPECT_EQ(plan.aligned_box, Box({8, 0, 4}, {18, 10, 12}));
}

TEST(ViewPlanner, QualityBiasMovesOneStepPerVisibleAxis) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 128, 128, 0).level, 14);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 128, 128, 1).level, 16);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 128, 128, -1).level, 12);
  EXPECT_EQ(Plan(ds, TopDown(0, 512, 0, 512), 128, 128, 10).level, 18);
}

TEST(ViewPlanner, OneDimensionalDataset) {
  auto ds = MakeDataset(Box({0}, {1024}), "V0000000000");
  Mat4 mvp = TopDown(256, 768, -1, 1);
  ViewPlan plan = Plan(ds, mvp, 128, 10);
  EXPECT_EQ(plan.box, Box({256}, {768}));
  EXPECT_EQ(plan.level, 8);  // 512 samples on 128 px: stride 4
}

TEST(ViewPlanner, BadInputIsNamed) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  try {
    Plan(ds, TopDown(0, 1, 0, 1), 0, 10);
    FAIL() << "no error for an empty viewport";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("viewport"), std::string::npos);
  }
  ds.physic_box = {0, 1, 0};
  EXPECT_THROW(Plan(ds, TopDown(0, 1, 0, 1), 10, 10), Error);
  ds.physic_box = {0, 1, 5, 5};
  EXPECT_THROW(Plan(ds, TopDown(0, 1, 0, 1), 10, 10), Error);
  ds.physic_box = {};
  Mat4 nan = TopDown(0, 1, 0, 1);
  nan[3] = std::nan("");
  EXPECT_THROW(Plan(ds, nan, 10, 10), Error);
  auto wrong = MakeDataset(Box({0, 0, 0}, {4, 4, 4}), "V0101");
  EXPECT_THROW(Plan(wrong, TopDown(0, 1, 0, 1), 10, 10), Error);
}

TEST(ViewPlanner, InvertIsTheInverse) {
  Mat4 m = Multiply(Perspective(50, 1.5, 0.3, 300), LookAt({3, -4, 5}, {1, 2, 0}, {0, 0, 1}));
  Mat4 inv;
  ASSERT_TRUE(Invert(m, inv));
  Mat4 id = Multiply(m, inv);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(id[4 * r + c], r == c ? 1.0 : 0.0, 1e-12);
  Mat4 singular{};
  EXPECT_FALSE(Invert(singular, inv));
}

}  // namespace
}  // namespace hzio
