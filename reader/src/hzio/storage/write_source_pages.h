/// The pages a buffered write copies from, mapped into this process before the write.
///
/// Linux copies a buffered write into the page cache with page faults disabled. When a source page
/// is not mapped in the writing process (a node-shared aggregation window whose pages other ranks
/// filled), the copy comes up short, and the kernel halves the piece of page cache it allocates for
/// the rest of the call, down to single 4 KiB pages. A 32 MiB block file written from the window
/// kept 7672 of its 8192 pages as single pages, and reading it back from the page cache ran at
/// 4.3 GB/s against 7.8-9.5 GB/s for the same bytes in 2 MiB folios (bench/mpi/RESULTS.md,
/// "files written from the window read back at page-cache speed").
///
/// Mapping costs even where the pages are mapped already (~150 ns a page here: 2 ms of a 32 MiB
/// write, 60 ms of 512 MiB on a shared core), so a writer that knows which of its memory is shared
/// keeps a WriteSourceMap: each shared page is mapped once in the memory's life, not before every
/// write.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace hzio {

/// The regions of shared memory a writer writes from (a node-shared window's parts), and which of
/// their pages this process has mapped so far. Memory outside the regions is taken to be this
/// process's own, mapped by its stores (private buffers, block tables): never mapped again.
class WriteSourceMap {
 public:
  /// Adds a region whose pages other processes may have filled. Regions do not overlap.
  void AddRegion(const void* data, size_t bytes);
  /// Maps the pages of the `n` buffers of `iov` that lie in a region and that no earlier call
  /// mapped (MADV_POPULATE_READ; advice only, as MapWriteSourcePages). Thread-safe.
  void Map(const iovec* iov, size_t n);
  /// Bytes of the regions mapped so far (whole pages).
  size_t mapped_bytes() const;

 private:
  void MapRange(uintptr_t lo, uintptr_t hi);  // page-aligned, inside one region; mutex_ held

  mutable std::mutex mutex_;
  std::map<uintptr_t, uintptr_t> regions_;  // begin -> end
  std::map<uintptr_t, uintptr_t> mapped_;   // begin -> end: disjoint, page-aligned, not touching
};

/// Maps every page of the `n` buffers of `iov` into this process (MADV_POPULATE_READ) when `fd`
/// is a buffered descriptor: with `known`, the pages it has not mapped yet (any write size);
/// without, all of them when they add up to 1 MiB or more. Nothing for O_DIRECT (the kernel pins
/// the pages itself). Advice only: a kernel without it, or a range it refuses, leaves the write as
/// it was.
void MapWriteSourcePages(int fd, const iovec* iov, size_t n, WriteSourceMap* known = nullptr);

/// The same for one buffer.
void MapWriteSourcePages(int fd, const void* data, size_t bytes, WriteSourceMap* known = nullptr);

}  // namespace hzio
