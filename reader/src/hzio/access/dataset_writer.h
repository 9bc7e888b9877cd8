/// Writes IDX datasets that OpenVisus reads (idx-format.md §4.9, A.3): a new dataset from a
/// header, or more fields/timesteps into an existing one. Arrays arrive whole or box by box (for
/// inputs larger than memory); a block is encoded and appended to its file as soon as all of its
/// samples inside the dataset box have arrived, so memory stays bounded by the blocks in flight.
/// Every write is a transaction (access/dataset_transaction.h): block files of the committed
/// version are never modified (a file that gets new blocks is written anew, carrying the blocks it
/// keeps), the `.idx` is renamed into place last, and a failed or abandoned write leaves the
/// dataset as it was.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hzio/access/dataset_transaction.h"
#include "hzio/format/idx_header.h"
#include "hzio/util/byte_buffer.h"

namespace hzio {

struct WriterOptions {
  int threads = 0;                 // encode threads; 0 = hardware concurrency
  bool allow_existing = false;     // write into an existing dataset (same header) instead of failing
  /// fsync every block file and directory before the .idx goes in (survives power loss, costs
  /// disk flushes). Without it the ordering still holds for crashes of the process.
  bool sync = false;
  /// Wait while another writer holds the dataset's lock instead of failing with kLocked.
  bool wait = false;
  /// Notes for the user (waiting for the lock, ...).
  std::function<void(const std::string&)> notify;
  /// Called with (samples written so far, samples expected) for progress bars.
  std::function<void(int64_t, int64_t)> progress;
};

/// Where a writer of a new ARCO dataset that has no local folder puts its block payloads (an
/// upload into an object store: remote/dataset_upload.h). Put may block (bounded memory: it waits
/// while too many payloads are on their way); errors it or Finish throw end the write.
class ArcoBlockOutput {
 public:
  virtual ~ArcoBlockOutput() = default;
  /// The encoded block `block` of field `field_name` at `time` (the object at ArcoBlockPath(stem,
  /// time, field_name, block), idx-format.md §4.12). Every block is put once, complete.
  virtual void Put(int64_t time, const std::string& field_name, uint64_t block, ByteBuffer payload) = 0;
  /// Returns when everything put is stored.
  virtual void Finish() = 0;
};

class DatasetWriter {
 public:
  /// Starts a write transaction of its own on the dataset at `idx_path` (taking its lock), for
  /// the dataset described by `header`. Fails with kInvalidArgument if a dataset is already there
  /// and !allow_existing; with allow_existing the existing header must describe the same geometry
  /// and fields. kLocked when another writer holds the lock (and !wait).
  DatasetWriter(std::string idx_path, IdxHeader header, WriterOptions options = {});
  /// Writes inside `txn` (already set up: Create, AddField, AddTimestep...) into txn.target();
  /// the caller commits `txn` after Finish(). `options.sync/wait/allow_existing` are not used.
  DatasetWriter(DatasetTransaction& txn, WriterOptions options = {});
  /// Writes the new ARCO dataset `header` (header.arco > 0) block by block into `output`, named
  /// `name` in messages: no local files, no transaction, no `.idx` (the caller stores it after
  /// Finish). Writes must complete each block once (as CopyDataset's pieces do): a block written
  /// again after it went out is refused (kUnsupported).
  DatasetWriter(const std::string& name, IdxHeader header, ArcoBlockOutput& output, WriterOptions options = {});
  ~DatasetWriter();  // without Finish(): stops; its own transaction removes what it staged
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;

  const IdxHeader& header() const;

  /// Writes `data` (row-major over `box`, x fastest, components contiguous, the field's dtype)
  /// into field `field` at timestep `time`. `box` must lie inside the dataset box.
  void Write(int field, int64_t time, const Box& box, const uint8_t* data);
  /// Flushes partially written blocks, carries the blocks it did not replace into the files it
  /// wrote, writes their block tables; then, with a transaction of its own, commits (the `.idx`).
  void Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes just the header of a new, empty dataset (what `hzio create` does); every part is
/// recorded as not written yet. kInvalidArgument if a dataset is already there.
void CreateEmptyDataset(const std::string& idx_path, const IdxHeader& header, const TransactionOptions& options = {});

}  // namespace hzio
