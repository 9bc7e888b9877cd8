/// Writes IDX datasets that OpenVisus reads (idx-format.md §4.9, A.3): a new dataset from a
/// header, or more fields/timesteps into an existing one. Arrays arrive whole or box by box (for
/// inputs larger than memory); a block is encoded and appended to its file as soon as all of its
/// samples inside the dataset box have arrived, so memory stays bounded by the blocks in flight.
/// The `.idx` is written last, atomically: a failed or abandoned write never looks complete.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "hzio/format/idx_header.h"

namespace hzio {

struct WriterOptions {
  int threads = 0;                 // encode threads; 0 = hardware concurrency
  bool allow_existing = false;     // write into an existing dataset (same header) instead of failing
  /// fsync every block file before the .idx goes in (survives power loss, costs a disk flush).
  /// Without it the ordering still holds for crashes: the .idx appears only after all data.
  bool sync = false;
  /// Called with (samples written so far, samples expected) for progress bars.
  std::function<void(int64_t, int64_t)> progress;
};

class DatasetWriter {
 public:
  /// Starts writing the dataset described by `header` at `idx_path`. Fails with kInvalidArgument
  /// if a dataset is already there and !allow_existing; with allow_existing the existing header
  /// must describe the same geometry and fields.
  DatasetWriter(std::string idx_path, IdxHeader header, WriterOptions options = {});
  ~DatasetWriter();  // without Finish(): stops, keeps block files but never writes the .idx
  DatasetWriter(const DatasetWriter&) = delete;
  DatasetWriter& operator=(const DatasetWriter&) = delete;

  const IdxHeader& header() const;

  /// Writes `data` (row-major over `box`, x fastest, components contiguous, the field's dtype)
  /// into field `field` at timestep `time`. `box` must lie inside the dataset box.
  void Write(int field, int64_t time, const Box& box, const uint8_t* data);
  /// Flushes partially written blocks, writes every file's block table, then the `.idx`.
  void Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes just the header of a new, empty dataset (what `hzio create` does).
void CreateEmptyDataset(const std::string& idx_path, const IdxHeader& header);

/// Writes `text` to `path` through a temporary file and a rename (never a half-written file);
/// `sync` flushes it to disk before the rename.
void WriteFileAtomically(const std::string& path, const std::string& text, bool sync = false);

}  // namespace hzio
