// VisIt's multiresolution selection values -> box + level (hz/visit_selection.h). Expectations are
// worked out by hand from the cameras and bitmasks, never by re-running the mapping's arithmetic.
#include "hzio/hz/visit_selection.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "hzio/util/error.h"

namespace hzio {
namespace {

constexpr const char* k2D512 = "V010101010101010101";  // 512 x 512, maxh 18; x at odd, y at even positions
constexpr const char* k3D64 = "V012012012012012012";   // 64^3, maxh 18

PlannerDataset MakeDataset(Box logic, std::string bitmask, std::vector<double> physic = {}) {
  return PlannerDataset{std::move(logic), std::move(physic), Bitmask::Parse(bitmask)};
}

// What VisIt's 2-D view sends: an orthographic camera at z = +1000 looking down -z onto the world
// window [x0,x1]x[y0,y1] (vtkCamera's composite projection, row-major, like avtView2D).
std::array<double, 16> TopDown(double x0, double x1, double y0, double y1) {
  const Mat4 m = Multiply(Orthographic(x0, x1, y0, y1, 1, 2000), LookAt({0, 0, 1000}, {0, 0, 0}, {0, 1, 0}));
  std::array<double, 16> out;
  std::copy(m.begin(), m.end(), out.begin());
  return out;
}

VisitMultiresValues Camera(std::array<double, 16> transform, int w, int h, double cell_area = DBL_MAX) {
  VisitMultiresValues v;
  v.transform = transform;
  v.window_width = w;
  v.window_height = h;
  v.desired_cell_area = cell_area;
  return v;
}

TEST(VisitSelection, DesiredCellAreaOfOneSamplePerViewPixelIsFullResolution) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // The whole dataset fills 512 x 512 pixels; VisIt wants cells of 1/512 of the view: 1 pixel.
  auto plan = PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 512, 512, 1.0 / 512), 0);
  EXPECT_TRUE(plan.from_camera);
  EXPECT_TRUE(plan.visible);
  EXPECT_EQ(plan.level, 18);
  EXPECT_EQ(plan.box, Box({0, 0}, {512, 512}));
  EXPECT_NEAR(plan.max_pixels_per_sample, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 1.0);
  // The whole dataset is loaded: every side is open, so panning never asks for a refinement.
  EXPECT_EQ(plan.actual_extents[0], -DBL_MAX);
  EXPECT_EQ(plan.actual_extents[1], DBL_MAX);
  EXPECT_EQ(plan.actual_extents[2], -DBL_MAX);
  EXPECT_EQ(plan.actual_extents[3], DBL_MAX);
}

TEST(VisitSelection, LargerDesiredCellsDropOneSplitPerAxisPerDoubling) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // Cells of 2/512 of the view: stride 2 on x and y -> the last two bitmask positions go.
  auto plan = PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 512, 512, 2.0 / 512), 0);
  EXPECT_EQ(plan.level, 16);
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 2.0);
  // VisIt's default 0.002 on this 512 px view allows 1.024 px: stride 2 (2 px) does not fit.
  EXPECT_EQ(PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 512, 512, 0.002), 0).level, 18);
  // 1/64 of the view: stride 8 on both axes -> 18 - 6.
  EXPECT_EQ(PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 512, 512, 1.0 / 64), 0).level, 12);
}

TEST(VisitSelection, TheDesiredCellAreaDoesNotDependOnTheWindowSize) {
  // VisIt's criterion is relative to the view, so the same camera in a 4x larger window keeps the level.
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  EXPECT_EQ(PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 2048, 2048, 1.0 / 128), 0).level, 14);
  EXPECT_EQ(PlanVisitSelection(ds, Camera(TopDown(0, 512, 0, 512), 128, 128, 1.0 / 128), 0).level, 14);
}

TEST(VisitSelection, ZoomReadsOnlyTheVisiblePartAndReportsItsExtents) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // The window shows x in [128,256], y in [0,128]: 4 pixels per sample on 512 px.
  auto plan = PlanVisitSelection(ds, Camera(TopDown(128, 256, 0, 128), 512, 512, 1.0 / 512), 0);
  EXPECT_EQ(plan.box, Box({128, 0}, {256, 128}));
  EXPECT_EQ(plan.level, 18);
  EXPECT_DOUBLE_EQ(plan.actual_extents[0], 128);
  EXPECT_DOUBLE_EQ(plan.actual_extents[1], 256);
  EXPECT_EQ(plan.actual_extents[2], -DBL_MAX);  // y starts at the dataset's edge
  EXPECT_DOUBLE_EQ(plan.actual_extents[3], 128);
  // Cells of 1/16 of the 128-wide view = 8 samples: stride 8 per axis, level 12.
  auto coarse = PlanVisitSelection(ds, Camera(TopDown(128, 256, 0, 128), 512, 512, 1.0 / 16), 0);
  EXPECT_EQ(coarse.level, 12);
  EXPECT_EQ(coarse.box, Box({128, 0}, {256, 128}));  // already on the stride-8 grid
}

TEST(VisitSelection, BoxIsWidenedToTheLevelGrid) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // The window shows x in [101,301], y in [38,238] on 512 x 512 px: 2.56 px per sample. Cells of
  // 12/512 of the view allow 12 px: stride 4 (10.24 px) fits, 8 (20.48 px) does not -> level 14.
  auto plan = PlanVisitSelection(ds, Camera(TopDown(101, 301, 38, 238), 512, 512, 12.0 / 512), 0);
  EXPECT_EQ(plan.level, 14);
  EXPECT_EQ(plan.box, Box({100, 36}, {304, 240}));  // [101,301) x [38,238) on the stride-4 grid
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 4.0);
  EXPECT_DOUBLE_EQ(plan.actual_extents[0], 100);
  EXPECT_DOUBLE_EQ(plan.actual_extents[3], 240);
}

TEST(VisitSelection, ViewportFractionSetsThePixelsWhenNoCellAreaIsGiven) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  // No desired cell area: one pixel per sample. A 1024 px window: 2 px per sample, full resolution.
  auto full = Camera(TopDown(0, 512, 0, 512), 1024, 1024);
  EXPECT_EQ(PlanVisitSelection(ds, full, 0).level, 18);
  // The 2-D view drawn into a quarter of the window each way: 256 px, stride 2 per axis.
  auto quarter = full;
  quarter.viewport = {0, 0.25, 0.5, 0.75, 0, 1};
  EXPECT_EQ(PlanVisitSelection(ds, quarter, 0).level, 16);
}

TEST(VisitSelection, ThreeDimensionalViewsIgnoreTheViewport) {
  auto ds = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  // Looking down z onto x,y: 1 px per sample on x and y, z does not move the image. The last x
  // split is position 16, the last y split 17, so level 17; VisIt's 3-D viewport is garbage.
  auto v = Camera(TopDown(0, 64, 0, 64), 64, 64);
  v.viewport = {0.1, 0.2, 0.1, 0.2, 0, 1};
  auto plan = PlanVisitSelection(ds, v, 0);
  EXPECT_EQ(plan.level, 17);
  EXPECT_EQ(plan.box, Box({0, 0, 0}, {64, 64, 64}));
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 2.0);  // z stride 2 at level 17
}

TEST(VisitSelection, PerspectiveCameraUsesTheClosestVisibleSamples) {
  auto ds = MakeDataset(Box({0, 0, 0}, {64, 64, 64}), k3D64);
  // 90-degree camera 32 units above the top face (z = 64), looking down at its centre, 64 px:
  // at the top face the view is 64 units wide -> 1 px per sample on x and y.
  const Mat4 m = Multiply(Perspective(90, 1, 1, 1000), LookAt({32, 32, 96}, {32, 32, 0}, {0, 1, 0}));
  std::array<double, 16> t;
  std::copy(m.begin(), m.end(), t.begin());
  auto plan = PlanVisitSelection(ds, Camera(t, 64, 64), 0);
  EXPECT_TRUE(plan.visible);
  // z moves the image in perspective: at the top corners one z step moves (1, 1) px = 1.41 px, so
  // even stride 1 exceeds 1 px: full resolution.
  EXPECT_EQ(plan.level, 18);
  // Cells of 4/64 of the view allow 4 px: x and y may take stride 4, z only 2 (2.83 px), and z's
  // last split is position 18 while 15 is z too: levels 15..17 keep z at stride 2 -> level 15.
  EXPECT_EQ(PlanVisitSelection(ds, Camera(t, 64, 64, 4.0 / 64), 0).level, 15);
}

TEST(VisitSelection, NothingInViewLoadsTheCoarsestSample) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  auto plan = PlanVisitSelection(ds, Camera(TopDown(1000, 2000, 1000, 2000), 512, 512), 7);
  EXPECT_TRUE(plan.from_camera);
  EXPECT_FALSE(plan.visible);
  EXPECT_EQ(plan.level, 0);
  EXPECT_EQ(plan.box, Box({0, 0}, {512, 512}));  // level 0's single cell covers the dataset
}

TEST(VisitSelection, WithoutATransformTheExtentsAndCellAreaDecide) {
  // Physic box [0,1]^2 over 512 samples: 1/512 per sample.
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512, {0, 1, 0, 1});
  VisitMultiresValues v;
  v.view_area = 1;
  v.desired_cell_area = 1.0 / 64;  // cells of 1/64 world = 8 samples -> level 12
  v.desired_extents = {0.25, 0.5, 0.5, 1, 0, 0};
  auto plan = PlanVisitSelection(ds, v, 18);
  EXPECT_FALSE(plan.from_camera);
  EXPECT_EQ(plan.level, 12);
  EXPECT_EQ(plan.box, Box({128, 256}, {256, 512}));
  EXPECT_DOUBLE_EQ(plan.actual_extents[0], 0.25);
  EXPECT_DOUBLE_EQ(plan.actual_extents[1], 0.5);
  EXPECT_DOUBLE_EQ(plan.actual_extents[2], 0.5);
  EXPECT_EQ(plan.actual_extents[3], DBL_MAX);
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 8.0 / 512);
}

TEST(VisitSelection, NothingSetUsesTheDefaultLevelOverTheWholeDataset) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  auto plan = PlanVisitSelection(ds, VisitMultiresValues{}, 9);
  EXPECT_FALSE(plan.from_camera);
  EXPECT_EQ(plan.level, 9);
  EXPECT_EQ(plan.box, Box({0, 0}, {512, 512}));
}

TEST(VisitSelection, PhysicBoxScalesTheReportedCellSize) {
  // 100 x 50 samples over [-1,1] x [0,10]: 0.02 and 0.2 per sample; full resolution cell 0.2.
  auto ds = MakeDataset(Box({0, 0}, {100, 50}), "V01010100100", {-1, 1, 0, 10});
  auto plan = PlanFixedLevel(ds, ds.bitmask.maxh());
  EXPECT_DOUBLE_EQ(plan.actual_cell_size, 0.2);
  auto part = PlanFixedLevel(ds, ds.bitmask.maxh(), Box({10, 0}, {20, 50}));
  EXPECT_DOUBLE_EQ(part.actual_extents[0], -0.8);
  EXPECT_DOUBLE_EQ(part.actual_extents[1], -0.6);
  EXPECT_EQ(part.actual_extents[2], -DBL_MAX);
  EXPECT_EQ(part.actual_extents[3], DBL_MAX);
}

TEST(VisitSelection, FixedLevelAlignsTheBoxToTheLevelGrid) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  auto plan = PlanFixedLevel(ds, 16, Box({3, 0}, {10, 5}));  // strides 2, 2
  EXPECT_EQ(plan.level, 16);
  EXPECT_EQ(plan.box, Box({2, 0}, {10, 6}));
  EXPECT_EQ(PlanFixedLevel(ds, 0).box, Box({0, 0}, {512, 512}));
  // As given (the plugin's Box read option, like `hzio read --box`): only clipped to the dataset.
  auto exact = PlanFixedLevel(ds, 16, Box({3, 0}, {10, 600}), FixedBox::kAsGiven);
  EXPECT_EQ(exact.box, Box({3, 0}, {10, 512}));
  EXPECT_DOUBLE_EQ(exact.actual_extents[0], 3);
  EXPECT_EQ(exact.actual_extents[3], DBL_MAX);
}

TEST(VisitSelection, SampleBudgetPicksTheFinestLevelThatFits) {
  const Bitmask b = Bitmask::Parse(k2D512);
  const Box all({0, 0}, {512, 512});
  EXPECT_EQ(SamplesAtLevel(b, all, 18), 512 * 512);
  EXPECT_EQ(SamplesAtLevel(b, all, 17), 512 * 256);  // position 18 splits y
  EXPECT_EQ(SamplesAtLevel(b, all, 0), 1);
  EXPECT_EQ(SamplesAtLevel(b, Box({1, 0}, {5, 1}), 16), 2);  // x stride 2 in [1,5): 2 and 4
  EXPECT_EQ(LevelForSampleBudget(b, all, 512 * 512), 18);
  EXPECT_EQ(LevelForSampleBudget(b, all, 512 * 512 - 1), 17);
  EXPECT_EQ(LevelForSampleBudget(b, all, 1), 0);
  EXPECT_EQ(LevelForSampleBudget(b, all, 0), 0);
}

TEST(VisitSelection, BadValuesAreRejectedByName) {
  auto ds = MakeDataset(Box({0, 0}, {512, 512}), k2D512);
  auto expect_error = [&](const VisitMultiresValues& v, int default_level, ErrorCode code, const char* word) {
    try {
      PlanVisitSelection(ds, v, default_level);
      FAIL() << "expected an error mentioning " << word;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code);
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  auto v = Camera(TopDown(0, 512, 0, 512), -1, 512);
  expect_error(v, 0, ErrorCode::kInvalidArgument, "window size");
  v = Camera(TopDown(0, 512, 0, 512), 512, 512);
  v.viewport = {0.5, 0.25, 0, 1, 0, 1};
  expect_error(v, 0, ErrorCode::kInvalidArgument, "viewport");
  expect_error(VisitMultiresValues{}, 19, ErrorCode::kInvalidArgument, "default level");
  EXPECT_THROW(PlanFixedLevel(ds, 19), Error);
  EXPECT_THROW(PlanFixedLevel(ds, 3, Box({600, 0}, {700, 10})), Error);
}

}  // namespace
}  // namespace hzio
