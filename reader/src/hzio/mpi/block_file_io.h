/// POSIX writes of block files for the aggregators (idx-format.md §4.5): a file is written with
/// one vectored write (header + payloads, adjacent payloads merged). Reads go through hzio::core's
/// ClassicBlockSource (block_reading.h), the one reader of block files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>


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

}  // namespace hzio::mpi
