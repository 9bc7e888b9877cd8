/// The objects behind `hzio_writer` and `hzio_reader` (hzio.h). A handle holds its dataset's
/// validated header (as a borrowed hzio_desc) and a backend that does the I/O: hzio::core's
/// serial writer and reader, or hzio::mpi's collective ones (mpi_handles.cpp). The entry points
/// check the caller's arguments once, against the header, for both kinds; a collective backend
/// agrees on the outcome of those checks so a rank with bad input never leaves the others waiting.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "hzio/c/desc.h"
#include "hzio/c/hzio.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/hz/grid.h"
#include "hzio/util/box.h"

namespace hzio::internal_c {

class WriterBackend {
 public:
  virtual ~WriterBackend() = default;
  /// Registers a box (already checked against the header). Local.
  virtual void Add(int field, int64_t time, const Box& box, const uint8_t* data) = 0;
  /// Writes everything registered, then the .idx (collective for collective backends).
  virtual hzio_io_stats Write() = 0;
};

class ReaderBackend {
 public:
  virtual ~ReaderBackend() = default;
  virtual const IdxHeader& header() const = 0;
  virtual const BlockLayout& layout() const = 0;
  /// Runs `checks` and makes its outcome everybody's: a collective backend throws the same
  /// Error on every rank if any rank's checks threw; a serial one just runs them.
  virtual void Agreed(const std::function<void()>& checks) = 0;
  /// Reads fields[k] of boxes[i] (checked, each holding samples at `level`) into out[k][i].
  virtual hzio_io_stats ReadInto(const std::vector<int>& fields, int64_t time, int level,
                                 const std::vector<Box>& boxes, const std::vector<std::vector<uint8_t*>>& out) = 0;
};

/// Throws kInvalidArgument unless `flags` uses only the bits in `allowed` (`kind` names the
/// handle in the message, e.g. "a serial writer").
void CheckFlags(int flags, int allowed, const char* kind);

/// The result grid of `box` at levels 0..level (idx-format.md §3.4) after clipping it to the
/// dataset box: zero counts when it holds no sample of those levels; kOutOfRange when it lies
/// outside the dataset or `level` is not 0..maxh.
Grid ResultGridOrEmpty(const IdxHeader& header, const BlockLayout& layout, const Box& box, int level);

/// Checks that arrays of `element_bytes`-byte elements can hold `field`'s samples: one element
/// per component (returns true) or per whole sample (false); kInvalidArgument otherwise.
bool CheckElementBytes(const Field& field, int element_bytes);

/// A level argument: HZIO_FULL_RESOLUTION is maxh, otherwise it must be 0..maxh (kOutOfRange).
int CheckedLevel(const IdxHeader& header, int level);

}  // namespace hzio::internal_c

struct hzio_writer {
  hzio_writer(hzio::IdxHeader header, std::unique_ptr<hzio::internal_c::WriterBackend> b)
      : desc(std::move(header)), backend(std::move(b)) {}

  hzio_desc desc;  // borrowed: the header being written
  std::unique_ptr<hzio::internal_c::WriterBackend> backend;
  bool written = false;
  hzio_io_stats stats{};
};

struct hzio_reader {
  explicit hzio_reader(std::unique_ptr<hzio::internal_c::ReaderBackend> b)
      : backend(std::move(b)), desc(backend->header()) {}

  std::unique_ptr<hzio::internal_c::ReaderBackend> backend;
  hzio_desc desc;  // borrowed: the dataset's header
  hzio_io_stats stats{};
};
