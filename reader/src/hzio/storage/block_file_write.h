/// Writing block files (idx-format.md §4.5) for the parallel writer's aggregators: a whole file
/// (table + payloads), or the parts of a shared file that several aggregators fill concurrently on
/// disjoint ranges. Reads go through access/classic_block_source, the one reader of block files.
///
/// Durable whole-file writes bypass the page cache (O_DIRECT) where the file system allows it:
/// buffered write + fsync ran at 0.5–0.9 GB/s on this machine's disk, direct writes at ~2.8 GB/s.
/// How (8 MiB aligned chunks, from the pieces' memory or gathered into staging, four lanes, the
/// padded size allocated first, a buffered fallback): storage/staged_file_write.h, of which a
/// whole-file write is the case where every piece is final from the start.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hzio {

class WriteSourceMap;

/// A byte range to write, in order.
struct ByteSpan {
  const uint8_t* data = nullptr;
  int64_t size = 0;
};

/// A byte range to write at an absolute file offset.
struct PlacedSpan {
  int64_t offset = 0;
  ByteSpan bytes;
};

/// Whether a whole-file write goes around the page cache.
enum class DirectIo {
  kAuto,    // when `sync` is asked and the file is at least kDirectIoMinBytes
  kNever,   // always buffered
  kAlways,  // whenever the file system allows it, whatever the size (tests)
};
inline constexpr int64_t kDirectIoMinBytes = int64_t{4} << 20;

/// Creates the parent directories and writes `pieces` back to back into `path` (truncating it),
/// then with `sync` makes it durable (fsync). Returns true if the bytes went out with O_DIRECT.
/// Throws kIo naming the path and the OS reason.
bool WriteWholeFile(const std::string& path, const std::vector<ByteSpan>& pieces, bool sync = false,
                    DirectIo direct = DirectIo::kAuto);

/// Writes each piece (sorted by offset) at its offset into `path`, created if missing but never
/// truncated first: how several aggregators fill their parts of a shared block file concurrently,
/// in any order. The writer of the file's last part passes `final_size` (>= 0) to cut what an
/// older, longer file left behind. Buffered (the parts' edges are not block-aligned); `sources`
/// as for WriteVectorAt. Throws kIo naming the path.
void WriteIntoFile(const std::string& path, const std::vector<PlacedSpan>& pieces, int64_t final_size = -1,
                   bool sync = false, WriteSourceMap* sources = nullptr);

}  // namespace hzio
