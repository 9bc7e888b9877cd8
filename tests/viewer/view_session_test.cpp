// The viewer's interactive path (viewer/src/view_session.h) in a real Qt event loop and OpenGL
// view (run under xvfb-run): camera changes are noticed after a render and re-planned, zooming in
// loads a smaller box at a finer level, a burst of camera moves ends on the last one, the level
// override and timestep switches reload.
#include <gtest/gtest.h>

#include <QApplication>
#include <QEventLoop>
#include <QSurfaceFormat>
#include <QTimer>
#include <QVTKOpenGLNativeWidget.h>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkNew.h>

#include "view_session.h"
#include "support/test_support.h"

namespace hzio::viewer {
namespace {

int64_t Volume(const Box& b) { return b.Size().Product(); }

class ViewSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = hzio::testing::WriteSyntheticDataset(dir_, 128, 128, 128, 2);
    view_ = std::make_unique<QVTKOpenGLNativeWidget>();
    vtkNew<vtkGenericOpenGLRenderWindow> window;
    view_->setRenderWindow(window);
    view_->setFixedSize(200, 200);
    scene_ = std::make_unique<Scene>(view_->renderWindow());
    scene_->SetRenderMode(RenderMode::kSlices);  // quick in software OpenGL
    QElapsedTimer clock;
    clock.start();
    session_ = std::make_unique<ViewSession>(scene_.get(), view_->renderWindow(), clock);
    QObject::connect(session_.get(), &ViewSession::failed, [](const QString& m) { ADD_FAILURE() << m.toStdString(); });
    view_->show();
  }
  void TearDown() override {
    session_.reset();
    scene_.reset();
    view_.reset();
  }

  // Runs the event loop until the next final image (false on timeout).
  bool WaitForFinal() {
    QEventLoop loop;
    bool done = false;
    auto c = QObject::connect(session_.get(), &ViewSession::finalImageShown, [&] {
      done = true;
      loop.quit();
    });
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
    QObject::disconnect(c);
    return done;
  }

  void MoveCamera(const CameraSpec& c) {
    scene_->SetCamera(c);
    session_->Render();  // the render notices the change and schedules a re-plan
  }

  hzio::testing::TempDir dir_;
  std::string path_;
  std::unique_ptr<QVTKOpenGLNativeWidget> view_;
  std::unique_ptr<Scene> scene_;
  std::unique_ptr<ViewSession> session_;
};

TEST_F(ViewSessionTest, CameraChangesReplanAndReload) {
  session_->Open(path_);
  ASSERT_TRUE(WaitForFinal());
  const SessionStats first = session_->stats();
  ASSERT_TRUE(first.shown.has_value());
  EXPECT_EQ(first.shown->box, (Box{Point{0, 0, 0}, Point{128, 128, 128}}));
  EXPECT_GT(first.seconds_to_first_image, 0);

  // Far away: the whole box at a coarse level.
  MoveCamera({{64 + 1500, 64 - 1900, 64 + 1200}, {64, 64, 64}, {0, 0, 1}});
  ASSERT_TRUE(WaitForFinal());
  const SessionStats far = session_->stats();
  EXPECT_EQ(Volume(far.shown->box), 128 * 128 * 128);
  EXPECT_LT(far.shown->level, first.shown->level);

  // A burst of moves towards a corner: only the last one's plan is loaded.
  MoveCamera({{100, 30, 100}, {128, 0, 128}, {0, 0, 1}});
  MoveCamera({{110, 20, 110}, {128, 0, 128}, {0, 0, 1}});
  MoveCamera({{118, 12, 118}, {128, 0, 128}, {0, 0, 1}});
  ASSERT_TRUE(WaitForFinal());
  const SessionStats near = session_->stats();
  EXPECT_GT(near.shown->level, far.shown->level);
  EXPECT_LT(Volume(near.shown->box), 128 * 128 * 128 / 64);
  EXPECT_GE(near.shown->box.p1[0], 110);  // the last camera's frustum, not an earlier one's
  EXPECT_GT(near.bytes_loaded, far.bytes_loaded);

  // A fixed level.
  session_->SetLevelOverride(12);
  ASSERT_TRUE(WaitForFinal());
  EXPECT_EQ(session_->stats().shown->level, 12);
}

TEST_F(ViewSessionTest, TimestepSwitchReloadsWithItsOwnRange) {
  session_->Open(path_);
  ASSERT_TRUE(WaitForFinal());
  const auto range0 = scene_->value_range();
  session_->SetTime(1);
  ASSERT_TRUE(WaitForFinal());
  const auto range1 = scene_->value_range();
  // design.md §4: timestep 1 adds 1e9 to every value.
  EXPECT_NEAR(range1[0] - range0[0], 1e9, 1e3);
  EXPECT_NEAR(range1[1] - range0[1], 1e9, 1e3);
}

}  // namespace
}  // namespace hzio::viewer

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  QSurfaceFormat format = QVTKOpenGLNativeWidget::defaultFormat();
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  return RUN_ALL_TESTS();
}
