#include "view_session.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkImageData.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>

#include "volume_image.h"

namespace hzio::viewer {
namespace {

constexpr int64_t kOverviewSamples = int64_t{1} << 18;  // 64^3: quick even over a slow link
constexpr int kReplanDelayMs = 150;                      // debounce of camera changes

// Whether `shown` already holds at least the detail of `step` over its box.
bool ShowsAtLeast(const LoadStep& shown, const LoadStep& step) {
  if (shown.level < step.level) return false;
  for (int d = 0; d < step.box.dims(); ++d) {
    if (step.box.p1[d] < shown.box.p1[d] || step.box.p2[d] > shown.box.p2[d]) return false;
  }
  return true;
}

bool SameView(const Mat4& a, const Mat4& b) {
  for (int i = 0; i < 16; ++i) {
    if (std::abs(a[i] - b[i]) > 1e-9 * (1 + std::abs(a[i]))) return false;
  }
  return true;
}

std::string BoxJson(const Box& box) {
  std::string s = "[";
  for (int d = 0; d < box.dims(); ++d) {
    s += (d ? "," : "") + std::to_string(box.p1[d]) + "," + std::to_string(box.p2[d]);
  }
  return s + "]";
}

}  // namespace

ViewSession::ViewSession(Scene* scene, vtkRenderWindow* window, QElapsedTimer clock, QObject* parent)
    : QObject(parent), scene_(scene), window_(window), clock_(clock) {
  loader_ = std::make_unique<ViewLoader>(
      [this](LoadedStep s) {  // worker thread: convert there, show on the UI thread
        ShownStep shown{s.generation, s.final, s.step, nullptr, s.bytes};
        std::string error;
        try {
          shown.image = MakeImage(s.dataset->header(), s.result);
        } catch (const std::exception& e) {
          error = e.what();
        }
        QMetaObject::invokeMethod(this, [this, shown, error] {
          if (!error.empty()) emit failed(QString::fromStdString(error));
          else ShowStep(shown);
        }, Qt::QueuedConnection);
      },
      [this](uint64_t generation, const std::string& message) {
        QMetaObject::invokeMethod(this, [this, generation, message] {
          if (generation == 0 || generation == current_generation_) {
            waiting_for_final_ = false;
            emit failed(QString::fromStdString(message));
          }
        }, Qt::QueuedConnection);
      });

  draw_pending_.setSingleShot(true);
  connect(&draw_pending_, &QTimer::timeout, this, &ViewSession::DrawPending);
  replan_timer_.setSingleShot(true);
  connect(&replan_timer_, &QTimer::timeout, this, &ViewSession::Replan);
  heartbeat_.setInterval(10);
  connect(&heartbeat_, &QTimer::timeout, this, &ViewSession::Heartbeat);
  heartbeat_.start();

  vtkNew<vtkCallbackCommand> on_render;
  on_render->SetClientData(this);
  on_render->SetCallback([](vtkObject*, unsigned long, void* self, void*) {
    static_cast<ViewSession*>(self)->OnRendered();
  });
  render_observer_ = scene_->renderer()->AddObserver(vtkCommand::EndEvent, on_render);
}

ViewSession::~ViewSession() {
  scene_->renderer()->RemoveObserver(render_observer_);
  loader_.reset();  // no callback runs after this
}

void ViewSession::Open(const std::string& source) {
  loader_->Cancel();
  ++overview_token_;
  dataset_.reset();
  have_plan_ = false;
  stats_ = SessionStats{};
  waiting_for_final_ = true;
  last_beat_ms_ = -1;
  loader_->Post([this, source](const ViewLoader::Deliver& deliver) {
    std::shared_ptr<Dataset> dataset;
    std::string error;
    try {
      dataset = OpenDataset(source);
    } catch (const std::exception& e) {
      error = e.what();
    }
    deliver([&] {
      QMetaObject::invokeMethod(this, [this, dataset, error] {
        if (!error.empty()) {
          waiting_for_final_ = false;
          emit failed(QString::fromStdString(error));
          return;
        }
        dataset_ = dataset;
        const IdxHeader& h = dataset_->header();
        try {
          if (!field_.empty()) h.FieldIndex(field_);  // throws kNotFound listing the fields
          dataset_->Resolve(BoxQuery{std::nullopt, 0, false, field_, time_});
        } catch (const std::exception& e) {
          waiting_for_final_ = false;
          emit failed(QString::fromStdString(e.what()));
          return;
        }
        const DType& dtype = h.fields[static_cast<size_t>(field_.empty() ? 0 : h.FieldIndex(field_))].dtype;
        scene_->SetDataset(h, IsColorImage(h, dtype));
        stats_.maxh = h.maxh();
        emit opened();
        StartOverview();
      }, Qt::QueuedConnection);
    });
  });
}

void ViewSession::StartOverview() {
  if (!dataset_) return;
  loader_->Cancel();
  have_plan_ = false;
  waiting_for_final_ = true;
  stats_.shown.reset();
  const IdxHeader& h = dataset_->header();
  overview_level_ = OverviewLevel(dataset_->layout(), h.box, kOverviewSamples);
  const uint64_t token = ++overview_token_;
  const LoadStep step{h.box, overview_level_};
  auto dataset = dataset_;
  BoxQuery query{h.box, overview_level_, false, field_, time_};
  loader_->Post([this, dataset, query, step, token](const ViewLoader::Deliver& deliver) {
    ShownStep shown{0, false, step, nullptr, 0};
    std::array<double, 2> range{0, 1};
    std::string error;
    try {
      const BoxResult result = dataset->Read(query);
      shown.bytes = result.data.ByteSize();
      shown.image = MakeImage(dataset->header(), result);
      range = ValueRange(shown.image);
    } catch (const std::exception& e) {
      error = e.what();
    }
    deliver([&] {
      QMetaObject::invokeMethod(this, [this, shown, range, error, token] {
        if (token != overview_token_) return;
        if (!error.empty()) {
          waiting_for_final_ = false;
          emit failed(QString::fromStdString(error));
          return;
        }
        ShowOverview(shown, range);
      }, Qt::QueuedConnection);
    });
  });
}

void ViewSession::ShowOverview(ShownStep shown, std::array<double, 2> range) {
  stats_.bytes_loaded += shown.bytes;
  ++stats_.queries;
  const IdxHeader& h = dataset_->header();
  const Field& field = h.fields[static_cast<size_t>(field_.empty() ? 0 : h.FieldIndex(field_))];
  // A range declared in the header wins over the overview's.
  if (field.dtype.components() == 1 && !field.min.empty() && !field.max.empty() && field.max[0] > field.min[0]) {
    range = {field.min[0], field.max[0]};
  }
  scene_->SetValueRange(range[0], range[1]);
  scene_->SetImage(shown.image);
  stats_.shown = shown.step;
  overview_ = shown;
  Render();
  if (stats_.seconds_to_first_image < 0) stats_.seconds_to_first_image = clock_.elapsed() / 1000.0;
  emit statusChanged();
  Replan();
}

void ViewSession::Replan() {
  replan_timer_.stop();
  if (!dataset_ || !scene_->HasImage()) return;
  const IdxHeader& h = dataset_->header();
  const int* size = window_->GetSize();
  const int width = std::max(1, size[0]), height = std::max(1, size[1]);
  PlannerDataset pd;
  pd.logic_box = h.box;
  pd.physic_box = h.PhysicBoxOrLogic();
  pd.physic_box.resize(static_cast<size_t>(2 * h.dims()));
  pd.bitmask = h.bitmask;
  PlannerView view;
  view.mvp = scene_->PlannerMatrix(width, height);
  view.viewport_width = width;
  view.viewport_height = height;
  planned_mvp_ = view.mvp;
  planned_viewport_ = {width, height};
  have_plan_ = true;

  ViewPlan plan = PlanView(pd, view);
  if (!clip_ && plan.visible) plan.box = h.box;
  stats_.planned_level = plan.level;
  LoadPolicy policy;
  policy.level_override = level_override_;
  policy.max_samples = max_samples_;
  policy.floor_level = overview_level_;
  std::vector<LoadStep> steps = PlanLoadSteps(dataset_->layout(), h.box, plan, policy);
  if (steps.empty() || (stats_.shown && Covers(*stats_.shown, steps.back()))) {
    loader_->Cancel();
    current_generation_ = 0;
    MarkFinal();
    return;
  }
  // The shown image no longer covers the view (zoom out, pan): fall back to the overview at once.
  if (stats_.shown && !ShowsAtLeast(*stats_.shown, LoadStep{steps.back().box, 0}) && overview_.image) {
    scene_->SetImage(overview_.image);
    stats_.shown = overview_.step;
  }
  // Coarse steps that would not add detail to what is shown are skipped.
  std::vector<LoadStep> wanted;
  for (size_t i = 0; i + 1 < steps.size(); ++i) {
    if (!stats_.shown || !ShowsAtLeast(*stats_.shown, steps[i])) wanted.push_back(steps[i]);
  }
  wanted.push_back(steps.back());
  waiting_for_final_ = true;
  stats_.final_shown = false;
  pending_.reset();
  current_generation_ = loader_->Submit(LoadRequest{dataset_, field_, time_, std::move(wanted)});
  emit statusChanged();
}

void ViewSession::ShowStep(ShownStep shown) {
  stats_.bytes_loaded += shown.bytes;
  ++stats_.queries;
  if (shown.generation != current_generation_) return;  // a stale view's data
  // Steps that arrive while a (software) render runs queue up: draw only the newest one, once
  // the event loop had its turn, so timers and input are served between renders.
  pending_ = std::move(shown);
  if (!draw_pending_.isActive()) draw_pending_.start(0);
}

void ViewSession::DrawPending() {
  if (!pending_ || pending_->generation != current_generation_) {
    pending_.reset();
    return;
  }
  ShownStep shown = std::move(*pending_);
  pending_.reset();
  scene_->SetImage(shown.image);
  stats_.shown = shown.step;
  Render();
  if (shown.final) MarkFinal();
  else emit statusChanged();
}

void ViewSession::MarkFinal() {
  if (replan_timer_.isActive()) return;  // the view moved on; its own final will come
  Heartbeat();  // the stall of the final render ends here, before anyone reads the stats
  waiting_for_final_ = false;
  stats_.final_shown = true;
  stats_.seconds_to_final_image = clock_.elapsed() / 1000.0;
  emit statusChanged();
  emit finalImageShown();
}

void ViewSession::Render() {
  scene_->ResetClippingRange();
  const qint64 t0 = clock_.nsecsElapsed();
  window_->Render();
  stats_.max_render_seconds = std::max(stats_.max_render_seconds, (clock_.nsecsElapsed() - t0) / 1e9);
}

void ViewSession::OnRendered() {
  if (!have_plan_ || !dataset_) return;
  const int* size = window_->GetSize();
  const int width = std::max(1, size[0]), height = std::max(1, size[1]);
  if (width == planned_viewport_[0] && height == planned_viewport_[1] &&
      SameView(scene_->PlannerMatrix(width, height), planned_mvp_)) {
    return;
  }
  stats_.final_shown = false;
  waiting_for_final_ = true;
  replan_timer_.start(kReplanDelayMs);
}

void ViewSession::Heartbeat() {
  // A gap counts when loading was under way at either end of it (the final render ends a load).
  const qint64 now = clock_.elapsed();
  if ((waiting_for_final_ || waiting_at_last_beat_) && last_beat_ms_ >= 0) {
    stats_.max_event_loop_gap = std::max(stats_.max_event_loop_gap, (now - last_beat_ms_) / 1000.0);
  }
  last_beat_ms_ = now;
  waiting_at_last_beat_ = waiting_for_final_;
}

void ViewSession::SetField(const std::string& field) {
  field_ = field;
  if (dataset_) StartOverview();
}

void ViewSession::SetTime(std::optional<int64_t> time) {
  time_ = time;
  if (dataset_) StartOverview();
}

void ViewSession::SetLevelOverride(std::optional<int> level) {
  level_override_ = level;
  if (dataset_ && scene_->HasImage()) Replan();
}

std::string ViewSession::StatsJson() const {
  std::ostringstream o;
  o.precision(6);
  o << std::fixed;
  o << "{\"level\":" << (stats_.shown ? stats_.shown->level : -1)
    << ",\"box\":" << (stats_.shown ? BoxJson(stats_.shown->box) : "[]")
    << ",\"bytes_loaded\":" << stats_.bytes_loaded
    << ",\"seconds_to_first_image\":" << stats_.seconds_to_first_image
    << ",\"seconds_to_final_image\":" << stats_.seconds_to_final_image
    << ",\"planned_level\":" << stats_.planned_level << ",\"maxh\":" << stats_.maxh
    << ",\"queries\":" << stats_.queries
    << ",\"max_event_loop_gap_seconds\":" << stats_.max_event_loop_gap
    << ",\"max_render_seconds\":" << stats_.max_render_seconds
    << ",\"volume_mapper\":\"" << scene_->VolumeMapperName() << "\"}";
  return o.str();
}

}  // namespace hzio::viewer
