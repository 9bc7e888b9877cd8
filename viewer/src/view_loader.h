/// The viewer's background loader: one worker thread that runs box queries (idx-format.md §3.4)
/// for the current view, coarse to fine, so the UI thread never waits on disk or network. A new
/// view request supersedes the previous one: queued steps of a stale request are dropped and a
/// running one stops after its current query. One-off tasks (opening a dataset, the overview) run
/// in order before view steps. No Qt: results go to callbacks on the worker thread, which the UI
/// layer forwards to its event loop.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "hzio/access/dataset.h"
#include "load_plan.h"

namespace hzio::viewer {

struct LoadRequest {
  std::shared_ptr<Dataset> dataset;
  std::string field;                // "" = first field
  std::optional<int64_t> time;      // nullopt = default timestep
  std::vector<LoadStep> steps;      // coarse to fine; the last one is final
};

/// One finished step of a request.
struct LoadedStep {
  std::shared_ptr<Dataset> dataset;
  uint64_t generation = 0;  // Submit()'s return value for the request
  size_t index = 0;         // position in LoadRequest::steps
  bool final = false;
  LoadStep step;
  BoxResult result;
  int64_t bytes = 0;        // sample bytes of this query
  double seconds = 0;       // time the query took
};

class ViewLoader {
 public:
  using StepCallback = std::function<void(LoadedStep)>;
  using ErrorCallback = std::function<void(uint64_t generation, const std::string& message)>;

  ViewLoader(StepCallback on_step, ErrorCallback on_error);
  /// Stops the worker. Callbacks never run after the destructor returns; a query still running
  /// after a short grace period (a hung server) is abandoned on a detached thread.
  ~ViewLoader();
  ViewLoader(const ViewLoader&) = delete;
  ViewLoader& operator=(const ViewLoader&) = delete;

  /// Replaces the current request; returns its generation (increasing).
  uint64_t Submit(LoadRequest request);
  /// Drops the current request (e.g. the dataset is being closed).
  void Cancel();
  /// Reports from a task: runs its argument on the worker thread unless the loader is being
  /// destroyed, so a report never reaches an object that is gone.
  using Deliver = std::function<void(const std::function<void()>&)>;
  /// Runs `task` on the worker, in order with other tasks and before any view step. Exceptions
  /// go to the error callback with generation 0.
  void Post(std::function<void(const Deliver&)> task);

  /// Whether `generation` is still the latest request.
  bool IsCurrent(uint64_t generation) const;
  /// Whether the worker has nothing queued or running.
  bool Idle() const;
  /// Sum of LoadedStep::bytes over every query run so far (including superseded ones).
  int64_t bytes_loaded() const;

 private:
  struct State;
  static void Run(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace hzio::viewer
