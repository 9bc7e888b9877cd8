// The VTK camera seen by the shared planner (design.md §6): Scene::PlannerMatrix agrees with the
// planner's own OpenGL camera helpers, so frustum clipping and levels match what VTK draws.
#include <gtest/gtest.h>

#include <cmath>

#include <vtkCamera.h>
#include <vtkNew.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>

#include "scene.h"

namespace hzio::viewer {
namespace {

TEST(SceneCamera, PlannerMatrixMatchesLookAtPerspective) {
  vtkNew<vtkRenderWindow> window;  // never rendered: no display needed
  Scene scene(window);
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{64, 64, 32}};
  h.bitmask = Bitmask::Guess(h.box.p2);
  h.physic_box = {0, 2, 0, 2, 0, 1};
  scene.SetDataset(h, false);
  const CameraSpec cam{{5, -4, 3}, {1, 1, 0.5}, {0, 0, 1}};
  scene.SetCamera(cam);
  const int width = 300, height = 200;
  const Mat4 m = scene.PlannerMatrix(width, height);
  const double fovy = scene.renderer()->GetActiveCamera()->GetViewAngle();
  EXPECT_DOUBLE_EQ(fovy, 30);
  const Mat4 reference =
      Multiply(Perspective(fovy, double(width) / height, 0.1, 100), LookAt(cam.position, cam.focal_point, cam.view_up));
  // Rows x, y and w do not depend on the near/far planes.
  for (int r : {0, 1, 3}) {
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(m[4 * r + c], reference[4 * r + c], 1e-9) << r << "," << c;
  }
  // Near and far enclose the dataset: every corner is inside the depth range.
  for (int corner = 0; corner < 8; ++corner) {
    const double p[3] = {(corner & 1) ? 2.0 : 0.0, (corner & 2) ? 2.0 : 0.0, (corner & 4) ? 1.0 : 0.0};
    double clip[4];
    for (int r = 0; r < 4; ++r) clip[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
    EXPECT_GT(clip[3], 0);
    EXPECT_LE(std::abs(clip[2] / clip[3]), 1.0);
  }
  // The planner sees the whole dataset from this camera; up close it needs full resolution
  // (about 2 pixels per sample), from 30 times further away a coarser level.
  PlannerDataset pd{h.box, h.physic_box, h.bitmask};
  PlannerView view;
  view.mvp = m;
  view.viewport_width = width;
  view.viewport_height = height;
  const ViewPlan near_plan = PlanView(pd, view);
  EXPECT_TRUE(near_plan.visible);
  EXPECT_EQ(near_plan.box, h.box);
  EXPECT_EQ(near_plan.level, h.bitmask.maxh());
  scene.SetCamera(CameraSpec{{1 + 30 * 4, 1 - 30 * 5, 0.5 + 30 * 2.5}, {1, 1, 0.5}, {0, 0, 1}});
  view.mvp = scene.PlannerMatrix(width, height);
  const ViewPlan far_plan = PlanView(pd, view);
  EXPECT_EQ(far_plan.box, h.box);
  EXPECT_LT(far_plan.level, h.bitmask.maxh() - 3);
}

}  // namespace
}  // namespace hzio::viewer
