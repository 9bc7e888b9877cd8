/// A whole block file written while its bytes are still being made: its pieces, back to back, each
/// final after some stage of whoever fills them (the parallel writer encodes field by field, and a
/// field's payloads are final once every rank has stored them). Each Release() starts direct writes
/// of the aligned runs of final bytes not yet written, on lanes apart from the caller, so the disk
/// works while the caller makes the rest; Finish() writes what is left and makes the file durable.
/// With every piece final from the start it is a plain whole-file write (WriteWholeFile).
///
/// Direct writes (O_DIRECT) where the file system allows it and they are asked for (DirectIo, as
/// for WriteWholeFile): the padded size is allocated when the file is created, so writes anywhere in
/// it run side by side (ext4 serialises direct writes that extend a file), each run is cut into
/// 8 MiB chunks written by up to four lanes at once (straight from the pieces where a chunk is one
/// aligned run of their memory, else gathered into aligned staging first), and the last
/// partial block is padded and cut back with ftruncate. A file system that refuses O_DIRECT (tmpfs,
/// some network file systems: EINVAL at open or at a first 4 KiB probe) gets one buffered vectored
/// write in Finish() instead.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <string>
#include <utility>
#include <vector>

#include "hzio/storage/block_file_write.h"
#include "hzio/storage/durable_file.h"

namespace hzio {

/// A piece of a staged file: its bytes, final once stage `stage` is released (-1: from the start).
struct StagedSpan {
  ByteSpan bytes;
  int stage = -1;
};

class StagedFileWrite {
 public:
  /// Creates `path` (and its parent directories), truncated, and decides how it is written. The
  /// bytes of pieces not yet final are not read before their stage is released. A buffered write
  /// maps its source pages first as WriteVectorAt does (with `sources`, those not mapped before).
  /// Throws kIo naming the path (e.g. it cannot be created, or its size cannot be allocated).
  StagedFileWrite(std::string path, std::vector<StagedSpan> pieces, bool sync, DirectIo direct,
                  WriteSourceMap* sources = nullptr);
  /// Waits for the writes in flight (they read the pieces' memory); their errors are dropped.
  ~StagedFileWrite();
  StagedFileWrite(const StagedFileWrite&) = delete;
  StagedFileWrite& operator=(const StagedFileWrite&) = delete;

  /// Whether the bytes go out with O_DIRECT (decided at creation): only then do releases write.
  bool direct() const { return direct_; }
  /// Every piece of a stage <= `stage` is final: the aligned runs of final bytes not yet written go
  /// to the lanes. Does not wait. (Buffered writes wait for Finish.)
  void Release(int stage);
  /// Writes the rest, waits for every write, cuts the file to its size, with `sync` makes it durable
  /// (fsync) and closes it. Returns true if the bytes went out with O_DIRECT. Throws kIo naming the
  /// path (the first failure of any write).
  bool Finish();
  /// The bytes written so far straight from the pieces' memory, with no staging copy.
  int64_t bytes_from_pieces() const { return bytes_from_pieces_.load(std::memory_order_relaxed); }

 private:
  void SubmitUnwritten(int64_t begin, int64_t end);
  void WriteChunk(int64_t offset, int64_t n) const;
  const uint8_t* ContiguousRun(size_t first, int64_t at, int64_t n) const;
  void WaitForWrites(bool rethrow);

  std::string path_;
  std::vector<StagedSpan> pieces_;
  std::vector<int64_t> starts_;  // of each piece in the file
  int64_t total_ = 0, padded_ = 0;
  bool sync_ = false, direct_ = false;
  WriteSourceMap* sources_ = nullptr;
  ScopedFd fd_;
  std::vector<std::pair<int64_t, int64_t>> written_;  // aligned [begin, end) given to the lanes, sorted
  std::vector<std::future<void>> in_flight_;
  mutable std::atomic<int64_t> bytes_from_pieces_{0};
};

}  // namespace hzio
