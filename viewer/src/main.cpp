// hzio-viewer: the Qt + VTK desktop viewer (design.md §3 "Desktop viewer", issue 7). Interactive
// by default; with --screenshot/--stats it renders, waits for the final level of the view, saves
// the PNG and/or prints the stats JSON, and exits.
#include <QApplication>
#include <QElapsedTimer>
#include <QSurfaceFormat>
#include <QVTKOpenGLNativeWidget.h>

#include <iostream>
#include <string>
#include <vector>

#include "main_window.h"
#include "viewer_options.h"

int main(int argc, char** argv) {
  QElapsedTimer clock;
  clock.start();
  hzio::viewer::ViewerOptions options;
  try {
    options = hzio::viewer::ParseViewerOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n" << hzio::viewer::ViewerUsage();
    return 2;
  }
  if (options.help) {
    std::cout << hzio::viewer::ViewerUsage();
    return 0;
  }

  QSurfaceFormat format = QVTKOpenGLNativeWidget::defaultFormat();
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QApplication::setApplicationName("hzio-viewer");

  hzio::viewer::MainWindow window(options, clock);
  if (hzio::viewer::IsScripted(options)) {
    auto* session = window.session();
    QObject::connect(session, &hzio::viewer::ViewSession::finalImageShown, &window, [&] {
      int status = 0;
      if (!options.screenshot.empty() && !window.SaveScreenshot(QString::fromStdString(options.screenshot))) status = 1;
      if (options.stats) std::cout << session->StatsJson() << std::endl;
      QApplication::exit(status);
    }, Qt::QueuedConnection);
    QObject::connect(session, &hzio::viewer::ViewSession::failed, &window, [](const QString& message) {
      std::cerr << "hzio-viewer: " << message.toStdString() << "\n";
      QApplication::exit(1);
    });
  }
  window.show();
  if (!options.dataset.empty()) window.OpenSource(QString::fromStdString(options.dataset));
  return app.exec();
}
