/// Block objects of an upload (remote/dataset_upload.h) PUT into an object store while the writer
/// encodes the next ones: Put groups payloads into batches that worker threads send, each batch with
/// many requests in flight (HttpClient: connection reuse, retries with backoff on 5xx and
/// timeouts, none on 4xx). Memory is bounded: Put waits while the payloads queued or on their way
/// exceed the limit. The first failed PUT (an error status after the transport's retries, or no
/// answer) ends the upload: Put and Finish throw it, naming the object.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hzio/access/dataset_writer.h"
#include "hzio/remote/object_store.h"

namespace hzio::internal_remote {

class ObjectUploader : public ArcoBlockOutput {
 public:
  struct Limits {
    size_t batch_objects = 64;               // PUTs sent together (in flight at once per worker)
    size_t batch_bytes = size_t{32} << 20;   // a batch goes out when it holds this much
    size_t max_bytes = size_t{128} << 20;    // payloads queued or on their way, at most
    int workers = 2;                          // batches sent at once (one's tail overlaps the next)
  };
  /// Block objects go under the folder of `store`'s `.idx`, named by ArcoBlockPath(idx_stem, ...).
  ObjectUploader(const ObjectStore& store, std::string idx_stem, Limits limits);
  ~ObjectUploader() override;  // stops the workers (what is on its way may still arrive)
  ObjectUploader(const ObjectUploader&) = delete;
  ObjectUploader& operator=(const ObjectUploader&) = delete;

  void Put(int64_t time, const std::string& field_name, uint64_t block, ByteBuffer payload) override;
  /// Sends what is queued and waits for every PUT; throws the first failure.
  void Finish() override;

  /// Objects and bytes stored so far (acknowledged by the store).
  uint64_t objects() const;
  uint64_t bytes() const;

 private:
  using Batch = std::vector<ObjectStore::PutObject>;
  void Enqueue(Batch batch, size_t bytes);
  void Work();
  void Send(const Batch& batch);
  void ThrowIfFailed();  // with mutex_ held

  const ObjectStore& store_;
  std::string idx_stem_;
  Limits limits_;
  Batch current_;
  size_t current_bytes_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<Batch, size_t>> queue_;
  size_t bytes_held_ = 0;  // queued + on their way
  int busy_ = 0;           // workers sending a batch
  bool stop_ = false;
  std::exception_ptr error_;
  uint64_t objects_done_ = 0, bytes_done_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace hzio::internal_remote
