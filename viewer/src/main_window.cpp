#include "main_window.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFormLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>
#include <QVTKOpenGLNativeWidget.h>

#include <iostream>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkInteractorStyleImage.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkRenderWindowInteractor.h>

namespace hzio::viewer {
namespace {

constexpr int kMaxRecent = 8;
constexpr size_t kMaxTimestepsListed = 1000;

QString Megabytes(int64_t bytes) { return QString::number(static_cast<double>(bytes) / (1 << 20), 'f', 2) + " MB"; }

}  // namespace

MainWindow::MainWindow(const ViewerOptions& options, QElapsedTimer clock) : options_(options) {
  setWindowTitle("hzio-viewer");
  view_ = new QVTKOpenGLNativeWidget(this);
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  window->SetMultiSamples(0);  // identical images on every OpenGL driver
  view_->setRenderWindow(window);
  setCentralWidget(view_);
  if (IsScripted(options_)) {
    view_->setFixedSize(options_.width, options_.height);
  } else {
    view_->setMinimumSize(options_.width, options_.height);
    // Let the user shrink the view after the first layout.
    QTimer::singleShot(0, this, [this] { view_->setMinimumSize(160, 120); });
  }
  scene_ = std::make_unique<Scene>(view_->renderWindow());
  scene_->SetRenderMode(options_.render);
  session_ = new ViewSession(scene_.get(), view_->renderWindow(), clock, this);
  session_->SetField(options_.field);
  session_->SetTime(options_.time);
  session_->SetLevelOverride(options_.level);
  session_->SetMaxSamples(options_.max_samples);
  session_->SetFrustumClipping(!options_.no_clip);

  status_ = new QLabel("no dataset: File > Open");
  statusBar()->addPermanentWidget(status_, 1);
  BuildMenus();
  BuildControls();
  connect(session_, &ViewSession::opened, this, &MainWindow::OnOpened);
  connect(session_, &ViewSession::statusChanged, this, &MainWindow::UpdateStatus);
  connect(session_, &ViewSession::failed, this, [this](const QString& message) {
    status_->setText("error: " + message);
    if (!IsScripted(options_)) QMessageBox::warning(this, "hzio-viewer", message);
  });
}

MainWindow::~MainWindow() {
  delete session_;  // stops loading before the scene goes
  session_ = nullptr;
}

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  QAction* open_file = file->addAction("Open &file...");
  open_file->setShortcut(QKeySequence::Open);
  connect(open_file, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open IDX dataset", QString(), "IDX datasets (*.idx)");
    if (!path.isEmpty()) OpenSource(path);
  });
  QAction* open_url = file->addAction("Open &URL...");
  open_url->setShortcut(QKeySequence("Ctrl+U"));
  connect(open_url, &QAction::triggered, this, [this] {
    bool ok = false;
    const QString url = QInputDialog::getText(this, "Open URL", "mod_visus URL:", QLineEdit::Normal,
                                              "http://127.0.0.1:8080/mod_visus?dataset=", &ok);
    if (ok && !url.trimmed().isEmpty()) OpenSource(url.trimmed());
  });
  recent_menu_ = file->addMenu("Open &recent");
  RefreshRecentMenu();
  file->addSeparator();
  QAction* save = file->addAction("&Save view as PNG...");
  save->setShortcut(QKeySequence::Save);
  connect(save, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Save view", "view.png", "PNG images (*.png)");
    if (!path.isEmpty()) SaveScreenshot(path);
  });
  file->addSeparator();
  QAction* quit = file->addAction("&Quit");
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::BuildControls() {
  auto* panel = new QWidget;
  auto* form = new QFormLayout(panel);
  field_box_ = new QComboBox;
  time_box_ = new QComboBox;
  level_box_ = new QSpinBox;
  level_box_->setRange(-1, 62);
  level_box_->setSpecialValueText("auto (1 sample/pixel)");
  level_box_->setValue(options_.level.value_or(-1));
  mode_box_ = new QComboBox;
  mode_box_->addItems({"volume", "slices", "volume + slices"});
  mode_box_->setCurrentIndex(static_cast<int>(options_.render));
  colormap_box_ = new QComboBox;
  for (const char* name : kColormaps) colormap_box_->addItem(name);
  opacity_slider_ = new QSlider(Qt::Horizontal);
  opacity_slider_->setRange(0, 400);
  opacity_slider_->setValue(100);
  form->addRow("Field", field_box_);
  form->addRow("Timestep", time_box_);
  form->addRow("Level", level_box_);
  form->addRow("Show", mode_box_);
  form->addRow("Colour map", colormap_box_);
  form->addRow("Opacity", opacity_slider_);
  const char* axis_names[3] = {"Slice X", "Slice Y", "Slice Z"};
  for (int d = 0; d < 3; ++d) {
    slice_sliders_[d] = new QSlider(Qt::Horizontal);
    slice_sliders_[d]->setRange(0, 1000);
    slice_sliders_[d]->setValue(500);
    form->addRow(axis_names[d], slice_sliders_[d]);
    connect(slice_sliders_[d], &QSlider::valueChanged, this, [this] {
      scene_->SetSliceFractions({slice_sliders_[0]->value() / 1000.0, slice_sliders_[1]->value() / 1000.0,
                                 slice_sliders_[2]->value() / 1000.0});
      session_->Render();
    });
  }
  auto* reset = new QPushButton("Reset camera");
  form->addRow(reset);
  connect(reset, &QPushButton::clicked, this, [this] {
    scene_->ResetCamera();
    session_->Render();
  });

  connect(field_box_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (!populating_ && !name.isEmpty()) session_->SetField(name.toStdString());
  });
  connect(time_box_, &QComboBox::currentTextChanged, this, [this](const QString& t) {
    if (!populating_ && !t.isEmpty()) session_->SetTime(t.toLongLong());
  });
  connect(level_box_, qOverload<int>(&QSpinBox::valueChanged), this, [this](int h) {
    session_->SetLevelOverride(h < 0 ? std::nullopt : std::optional<int>(h));
  });
  connect(mode_box_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    scene_->SetRenderMode(static_cast<RenderMode>(i));
    session_->Render();
  });
  connect(colormap_box_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    scene_->SetColormap(name.toStdString());
    session_->Render();
  });
  connect(opacity_slider_, &QSlider::valueChanged, this, [this](int v) {
    scene_->SetOpacityScale(v / 100.0);
    session_->Render();
  });

  auto* dock = new QDockWidget("View", this);
  dock->setObjectName("controls");
  dock->setWidget(panel);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  if (IsScripted(options_)) dock->hide();
}

void MainWindow::OpenSource(const QString& source) {
  status_->setText("opening " + source + " ...");
  setWindowTitle("hzio-viewer: " + source);
  if (!IsScripted(options_)) AddRecent(source);  // scripted runs leave the user's settings alone
  session_->Open(source.toStdString());
}

void MainWindow::OnOpened() {
  const IdxHeader& h = session_->dataset()->header();
  populating_ = true;
  field_box_->clear();
  for (const Field& f : h.fields) field_box_->addItem(QString::fromStdString(f.name));
  if (!session_->field().empty()) field_box_->setCurrentText(QString::fromStdString(session_->field()));
  time_box_->clear();
  for (int64_t t : h.time.List(kMaxTimestepsListed)) time_box_->addItem(QString::number(t));
  time_box_->setCurrentText(QString::number(session_->time().value_or(h.time.Default())));
  level_box_->setMaximum(h.maxh());
  populating_ = false;
  if (h.dims() == 3) {
    vtkNew<vtkInteractorStyleTrackballCamera> style;
    view_->interactor()->SetInteractorStyle(style);
  } else {
    vtkNew<vtkInteractorStyleImage> style;
    view_->interactor()->SetInteractorStyle(style);
  }
  if (options_.camera && !camera_applied_) scene_->SetCamera(*options_.camera);
  camera_applied_ = true;
}

void MainWindow::UpdateStatus() {
  const SessionStats& s = session_->stats();
  QString text;
  if (s.shown) {
    text += QString("level %1/%2").arg(s.shown->level).arg(s.maxh);
    if (s.planned_level >= 0) text += QString(" (planned %1)").arg(s.planned_level);
    text += " · box " + QString::fromStdString(s.shown->box.ToRangesString());
  }
  text += " · " + Megabytes(s.bytes_loaded) + QString(" in %1 queries").arg(s.queries);
  if (s.seconds_to_first_image >= 0) text += QString(" · first image %1 s").arg(s.seconds_to_first_image, 0, 'f', 2);
  if (s.final_shown) text += QString(" · final %1 s").arg(s.seconds_to_final_image, 0, 'f', 2);
  else text += " · loading...";
  text += " · volume: " + QString::fromStdString(scene_->VolumeMapperName());
  status_->setText(text);
}

bool MainWindow::SaveScreenshot(const QString& path) {
  const QImage image = view_->grabFramebuffer();
  if (image.isNull() || !image.save(path, "PNG")) {
    std::cerr << "hzio-viewer: could not save the view to " << path.toStdString() << "\n";
    return false;
  }
  return true;
}

void MainWindow::AddRecent(const QString& source) {
  QSettings settings("hzio", "hzio-viewer");
  QStringList recent = settings.value("recent").toStringList();
  recent.removeAll(source);
  recent.prepend(source);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent", recent);
  RefreshRecentMenu();
}

void MainWindow::RefreshRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings("hzio", "hzio-viewer").value("recent").toStringList();
  for (const QString& source : recent) {
    connect(recent_menu_->addAction(source), &QAction::triggered, this, [this, source] { OpenSource(source); });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

}  // namespace hzio::viewer
