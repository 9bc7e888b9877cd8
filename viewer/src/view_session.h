/// One open dataset in the viewer and its view-dependent loading (design.md §6): opens the
/// dataset and loads a small overview on the worker thread, then after every camera or viewport
/// change (debounced) asks the shared planner for the visible box and level, and loads it coarse to
/// fine through ViewLoader, replacing the shown image in place as each level arrives. Keeps the
/// numbers the status bar and `--stats` report. Runs on the Qt UI thread, which never does I/O.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <array>
#include <memory>
#include <optional>
#include <string>

#include <vtkSmartPointer.h>

#include "hzio/access/dataset.h"
#include "load_plan.h"
#include "scene.h"
#include "view_loader.h"

class vtkImageData;
class vtkRenderWindow;

namespace hzio::viewer {

/// Numbers reported by the status bar and `--stats`.
struct SessionStats {
  std::optional<LoadStep> shown;       // what the image shows now
  int maxh = 0;
  int planned_level = -1;              // level the planner asked for (before the budget)
  int64_t bytes_loaded = 0;            // sample bytes of every query, overview included
  int queries = 0;
  double seconds_to_first_image = -1;  // from the session clock's start; -1 = not yet
  double seconds_to_final_image = -1;  // the latest view's final level shown
  double max_event_loop_gap = 0;       // longest stall of the UI event loop while loading
  double max_render_seconds = 0;       // longest Render() call (UI-thread work, not I/O)
  bool final_shown = false;
};

class ViewSession : public QObject {
  Q_OBJECT
 public:
  /// `clock` started when the user asked for the dataset (process start in scripted runs).
  ViewSession(Scene* scene, vtkRenderWindow* window, QElapsedTimer clock, QObject* parent = nullptr);
  ~ViewSession() override;

  /// Opens `source` in the background; opened() or failed() follows.
  void Open(const std::string& source);
  const std::shared_ptr<Dataset>& dataset() const { return dataset_; }

  void SetField(const std::string& field);
  void SetTime(std::optional<int64_t> time);
  /// nullopt = planned from the view.
  void SetLevelOverride(std::optional<int> level);
  void SetMaxSamples(int64_t samples) { max_samples_ = samples; }
  /// Loads the whole dataset box instead of the visible part (reference renders).
  void SetFrustumClipping(bool on) { clip_ = on; }
  const std::string& field() const { return field_; }
  std::optional<int64_t> time() const { return time_; }

  /// Re-plans now (e.g. after the camera was set programmatically).
  void Replan();
  /// Renders the scene (near/far planes around the whole dataset first).
  void Render();

  const SessionStats& stats() const { return stats_; }
  /// The --stats JSON object (design.md §3) with a few extra keys.
  std::string StatsJson() const;

 signals:
  void opened();
  void failed(QString message);
  /// The status changed (new image, new plan, error).
  void statusChanged();
  /// The final level of the current view is on screen.
  void finalImageShown();

 private:
  struct ShownStep {
    uint64_t generation = 0;
    bool final = false;
    LoadStep step;
    vtkSmartPointer<vtkImageData> image;
    int64_t bytes = 0;
  };
  void StartOverview();
  void ShowOverview(ShownStep shown, std::array<double, 2> range);
  void ShowStep(ShownStep shown);
  void DrawPending();
  void OnRendered();
  void MarkFinal();
  void Heartbeat();

  Scene* scene_;
  vtkRenderWindow* window_;
  QElapsedTimer clock_;
  std::unique_ptr<ViewLoader> loader_;
  std::shared_ptr<Dataset> dataset_;
  std::string field_;
  std::optional<int64_t> time_;
  std::optional<int> level_override_;
  int64_t max_samples_ = int64_t{1} << 24;
  bool clip_ = true;
  int overview_level_ = 0;
  uint64_t current_generation_ = 0;
  ShownStep overview_;                // kept to show at once when the view leaves the shown box
  uint64_t overview_token_ = 0;       // identifies the latest overview request
  bool waiting_for_final_ = false;
  // Last planned camera and viewport, to notice changes after each render.
  Mat4 planned_mvp_{};
  std::array<int, 2> planned_viewport_{0, 0};
  bool have_plan_ = false;
  QTimer replan_timer_;
  QTimer draw_pending_;               // draws `pending_` after the event loop had its turn
  std::optional<ShownStep> pending_;
  QTimer heartbeat_;
  qint64 last_beat_ms_ = -1;
  bool waiting_at_last_beat_ = false;
  unsigned long render_observer_ = 0;
  SessionStats stats_;
};

}  // namespace hzio::viewer
