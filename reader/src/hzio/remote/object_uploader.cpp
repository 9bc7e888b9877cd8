#include "hzio/remote/object_uploader.h"

#include "hzio/format/arco_block_path.h"
#include "hzio/util/error.h"

namespace hzio::internal_remote {

ObjectUploader::ObjectUploader(const ObjectStore& store, std::string idx_stem, Limits limits)
    : store_(store), idx_stem_(std::move(idx_stem)), limits_(limits) {
  for (int i = 0; i < std::max(1, limits_.workers); ++i) workers_.emplace_back([this] { Work(); });
}

ObjectUploader::~ObjectUploader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ObjectUploader::ThrowIfFailed() {
  if (error_) std::rethrow_exception(error_);
}

void ObjectUploader::Put(int64_t time, const std::string& field_name, uint64_t block, ByteBuffer payload) {
  ObjectStore::PutObject object;
  object.key = store_.Key(ArcoBlockPath(idx_stem_, time, field_name, block));
  // The transport sends a string; the copy is small beside the PUT itself.
  object.body = std::make_shared<const std::string>(reinterpret_cast<const char*>(payload.data()), payload.size());
  current_bytes_ += payload.size();
  current_.push_back(std::move(object));
  if (current_.size() >= limits_.batch_objects || current_bytes_ >= limits_.batch_bytes) {
    Enqueue(std::move(current_), current_bytes_);
    current_.clear();
    current_bytes_ = 0;
  }
}

void ObjectUploader::Enqueue(Batch batch, size_t bytes) {
  std::unique_lock<std::mutex> lock(mutex_);
  // A batch larger than the limit alone still goes, when nothing else is held.
  changed_.wait(lock, [&] { return error_ || bytes_held_ == 0 || bytes_held_ + bytes <= limits_.max_bytes; });
  ThrowIfFailed();
  bytes_held_ += bytes;
  queue_.emplace_back(std::move(batch), bytes);
  changed_.notify_all();
}

void ObjectUploader::Finish() {
  if (!current_.empty()) {
    Enqueue(std::move(current_), current_bytes_);
    current_.clear();
    current_bytes_ = 0;
  }
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return error_ || (queue_.empty() && busy_ == 0); });
  ThrowIfFailed();
}

uint64_t ObjectUploader::objects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return objects_done_;
}

uint64_t ObjectUploader::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_done_;
}

void ObjectUploader::Work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || (!queue_.empty() && !error_); });
    if (stop_) return;
    std::pair<Batch, size_t> item = std::move(queue_.front());
    const Batch& batch = item.first;
    const size_t bytes = item.second;
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      Send(batch);
    } catch (...) {  // handed to the writer's thread, which rethrows it from Put or Finish
      failure = std::current_exception();
    }
    lock.lock();
    --busy_;
    bytes_held_ -= bytes;
    if (failure && !error_) error_ = failure;
    if (!failure) {
      objects_done_ += batch.size();
      bytes_done_ += bytes;
    }
    changed_.notify_all();
  }
}

void ObjectUploader::Send(const Batch& batch) {
  store_.PutMany(batch, [&](size_t i, HttpResponse&& response) {
    if (response.status != 200 && response.status != 201 && response.status != 204)
      throw store_.ResponseError(batch[i].key, response);  // cancels the batch's other PUTs
  });
}

}  // namespace hzio::internal_remote
