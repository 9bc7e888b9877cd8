/// The viewer's main window: the VTK view (QVTKOpenGLNativeWidget), a control panel (field,
/// timestep, level override, volume/slices, colour map, opacity, slice positions), a status bar
/// with level, box, bytes and timings, open-file / open-URL dialogs with a recent list, and
/// saving the view as PNG. All loading goes through ViewSession on its worker thread.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QString>

#include <array>
#include <memory>

#include "scene.h"
#include "view_session.h"
#include "viewer_options.h"

class QComboBox;
class QLabel;
class QMenu;
class QSlider;
class QSpinBox;
class QVTKOpenGLNativeWidget;

namespace hzio::viewer {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow(const ViewerOptions& options, QElapsedTimer clock);
  ~MainWindow() override;

  /// Opens a .idx path or mod_visus URL (and remembers it in the recent list).
  void OpenSource(const QString& source);
  /// Saves the view as it is on screen; returns false (with a message on stderr) on failure.
  bool SaveScreenshot(const QString& path);
  ViewSession* session() const { return session_; }

 private:
  void BuildMenus();
  void BuildControls();
  void OnOpened();
  void UpdateStatus();
  void AddRecent(const QString& source);
  void RefreshRecentMenu();

  ViewerOptions options_;
  bool camera_applied_ = false;
  QVTKOpenGLNativeWidget* view_ = nullptr;
  std::unique_ptr<Scene> scene_;
  ViewSession* session_ = nullptr;
  QLabel* status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QComboBox* field_box_ = nullptr;
  QComboBox* time_box_ = nullptr;
  QSpinBox* level_box_ = nullptr;
  QComboBox* mode_box_ = nullptr;
  QComboBox* colormap_box_ = nullptr;
  QSlider* opacity_slider_ = nullptr;
  std::array<QSlider*, 3> slice_sliders_{};
  bool populating_ = false;  // suppresses control signals while filling them from the dataset
};

}  // namespace hzio::viewer
