#include "hzio/storage/write_queue.h"

#include <memory>

#include "hzio/storage/file.h"

namespace hzio {

WriteQueue::WriteQueue(size_t max_pending, std::function<void(ByteBuffer)> recycle)
    : max_pending_(max_pending), recycle_(std::move(recycle)), thread_([this] { Run(); }) {}

WriteQueue::~WriteQueue() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return (jobs_.empty() && !busy_) || error_; });
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void WriteQueue::RethrowLocked() {
  if (error_) std::rethrow_exception(error_);
}

void WriteQueue::Push(std::string path, uint64_t offset, ByteBuffer payload) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return jobs_.size() < max_pending_ || error_; });
  RethrowLocked();
  jobs_.push_back(Job{std::move(path), offset, std::move(payload)});
  cv_.notify_all();
}

void WriteQueue::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return (jobs_.empty() && !busy_) || error_; });
  RethrowLocked();
}

void WriteQueue::Run() {
  std::string open_path;
  std::unique_ptr<WriteFile> file;
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || (!jobs_.empty() && !error_); });
      if (stop_ && (jobs_.empty() || error_)) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
    }
    cv_.notify_all();
    try {
      if (job.path != open_path) {  // consecutive payloads mostly share a file: keep it open
        file.reset();
        file = std::make_unique<WriteFile>(job.path, false);
        open_path = job.path;
      }
      file->WriteAt(job.offset, job.payload.data(), job.payload.size());
      recycle_(std::move(job.payload));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
    cv_.notify_all();
  }
}

}  // namespace hzio
