/// POSIX I/O of whole block files for the aggregators (idx-format.md §4.5): a file is written
/// with one vectored write (header + payloads, adjacent payloads merged), and read back as its
/// block table plus one large read covering the payloads an aggregator needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hzio/format/block_table.h"

namespace hzio::mpi {

/// A byte range to write, in order.
struct ByteSpan {
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

/// Creates the parent directories and writes `pieces` back to back into `path` (truncating it),
/// then with `sync` fsyncs it. Throws kIo naming the path and the OS reason.
void WriteWholeFile(const std::string& path, const std::vector<ByteSpan>& pieces, bool sync = false);

/// A byte range to write at an absolute file offset.
struct PlacedSpan {
  int64_t offset = 0;
  ByteSpan bytes;
};

/// Writes each piece at its offset into `path`, created if missing but never truncated first: how
/// several aggregators fill their parts of a shared block file concurrently, in any order. The
/// writer of the file's last part passes `final_size` (>= 0) to cut what an older, longer file
/// left behind. Throws kIo naming the path.
void WriteIntoFile(const std::string& path, const std::vector<PlacedSpan>& pieces, int64_t final_size = -1,
                   bool sync = false);

/// An open block file: its table, decoded and bounds-checked.
class BlockFileReader {
 public:
  /// Returns nullopt if the file does not exist; throws kIo / kCorrupt naming the path otherwise.
  static std::optional<BlockFileReader> Open(const std::string& path, int version, int64_t slots);
  BlockFileReader(BlockFileReader&&) noexcept;
  BlockFileReader& operator=(BlockFileReader&&) noexcept;
  ~BlockFileReader();

  const std::vector<BlockEntry>& entries() const { return entries_; }
  const std::string& path() const { return path_; }
  /// Reads [offset, offset+size) exactly; throws kIo/kCorrupt on a short read.
  void ReadAt(uint64_t offset, uint64_t size, uint8_t* out) const;
  /// Bytes read from this file so far (table included).
  int64_t bytes_read() const { return bytes_read_; }

 private:
  BlockFileReader() = default;
  int fd_ = -1;
  std::string path_;
  std::vector<BlockEntry> entries_;
  mutable int64_t bytes_read_ = 0;
};

}  // namespace hzio::mpi
