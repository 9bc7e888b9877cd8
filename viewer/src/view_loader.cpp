#include "view_loader.h"

#include <chrono>

namespace hzio::viewer {

// Shared with the worker thread, which may outlive the ViewLoader when abandoned.
struct ViewLoader::State {
  mutable std::mutex mutex;
  std::condition_variable wake, finished_cv;
  std::deque<std::function<void(const Deliver&)>> tasks;
  std::optional<LoadRequest> request;  // the latest request, not yet started
  size_t next_step = 0;                // next step of `running`
  std::optional<LoadRequest> running;
  uint64_t generation = 0;             // latest Submit()/Cancel()
  uint64_t running_generation = 0;
  bool busy = false;
  bool stop = false;
  bool finished = false;
  int64_t bytes = 0;
  // Held while a callback runs, so the destructor can wait for it and then disable callbacks.
  std::mutex callback_mutex;
  bool callbacks_enabled = true;
  StepCallback on_step;
  ErrorCallback on_error;
};

ViewLoader::ViewLoader(StepCallback on_step, ErrorCallback on_error) : state_(std::make_shared<State>()) {
  state_->on_step = std::move(on_step);
  state_->on_error = std::move(on_error);
  thread_ = std::thread(&ViewLoader::Run, state_);
}

ViewLoader::~ViewLoader() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
    state_->tasks.clear();
    state_->request.reset();
    ++state_->generation;
  }
  state_->wake.notify_all();
  {
    std::lock_guard lock(state_->callback_mutex);
    state_->callbacks_enabled = false;
  }
  std::unique_lock lock(state_->mutex);
  const bool done = state_->finished_cv.wait_for(lock, std::chrono::seconds(2), [&] { return state_->finished; });
  lock.unlock();
  if (done) thread_.join();
  else thread_.detach();  // a query is stuck on a slow peer; the thread keeps `state_` alive
}

uint64_t ViewLoader::Submit(LoadRequest request) {
  uint64_t generation;
  {
    std::lock_guard lock(state_->mutex);
    generation = ++state_->generation;
    state_->request = std::move(request);
  }
  state_->wake.notify_all();
  return generation;
}

void ViewLoader::Cancel() {
  std::lock_guard lock(state_->mutex);
  ++state_->generation;
  state_->request.reset();
}

void ViewLoader::Post(std::function<void(const Deliver&)> task) {
  {
    std::lock_guard lock(state_->mutex);
    state_->tasks.push_back(std::move(task));
  }
  state_->wake.notify_all();
}

bool ViewLoader::IsCurrent(uint64_t generation) const {
  std::lock_guard lock(state_->mutex);
  return generation == state_->generation;
}

bool ViewLoader::Idle() const {
  std::lock_guard lock(state_->mutex);
  return !state_->busy && state_->tasks.empty() && !state_->request &&
         (!state_->running || state_->next_step >= state_->running->steps.size());
}

int64_t ViewLoader::bytes_loaded() const {
  std::lock_guard lock(state_->mutex);
  return state_->bytes;
}

void ViewLoader::Run(std::shared_ptr<State> s) {
  auto report_error = [&](uint64_t generation, const std::string& message) {
    std::lock_guard lock(s->callback_mutex);
    if (s->callbacks_enabled && s->on_error) s->on_error(generation, message);
  };
  const Deliver deliver = [&s](const std::function<void()>& report) {
    std::lock_guard lock(s->callback_mutex);
    if (s->callbacks_enabled) report();
  };
  std::unique_lock lock(s->mutex);
  while (true) {
    s->busy = false;
    s->wake.wait(lock, [&] {
      return s->stop || !s->tasks.empty() || s->request ||
             (s->running && s->running_generation == s->generation && s->next_step < s->running->steps.size());
    });
    if (s->stop) break;
    s->busy = true;
    if (!s->tasks.empty()) {
      auto task = std::move(s->tasks.front());
      s->tasks.pop_front();
      lock.unlock();
      try {
        task(deliver);
      } catch (const std::exception& e) {
        report_error(0, e.what());
      }
      lock.lock();
      continue;
    }
    if (s->request) {  // a newer request supersedes whatever was running
      s->running = std::move(s->request);
      s->request.reset();
      s->running_generation = s->generation;
      s->next_step = 0;
    }
    if (!s->running || s->running_generation != s->generation || s->next_step >= s->running->steps.size()) {
      continue;
    }
    const size_t index = s->next_step++;
    const uint64_t generation = s->running_generation;
    const LoadRequest& req = *s->running;
    LoadedStep out;
    out.dataset = req.dataset;
    out.generation = generation;
    out.index = index;
    out.final = index + 1 == req.steps.size();
    out.step = req.steps[index];
    BoxQuery query;
    query.box = out.step.box;
    query.level = out.step.level;
    query.field = req.field;
    query.time = req.time;
    std::shared_ptr<Dataset> dataset = req.dataset;
    lock.unlock();
    try {
      const auto t0 = std::chrono::steady_clock::now();
      out.result = dataset->Read(query);
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      out.bytes = out.result.data.ByteSize();
      {
        std::lock_guard state_lock(s->mutex);
        s->bytes += out.bytes;
      }
      std::lock_guard callback_lock(s->callback_mutex);
      if (s->callbacks_enabled && s->on_step) s->on_step(std::move(out));
    } catch (const std::exception& e) {
      report_error(generation, e.what());
      std::lock_guard state_lock(s->mutex);
      if (s->running_generation == generation && s->running) s->next_step = s->running->steps.size();
    }
    lock.lock();
  }
  s->finished = true;
  lock.unlock();
  s->finished_cv.notify_all();
}

}  // namespace hzio::viewer
