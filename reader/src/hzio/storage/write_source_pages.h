/// The pages a buffered write copies from, mapped into this process before the write.
///
/// Linux copies a buffered write into the page cache with page faults disabled. When a source page
/// is not mapped in the writing process (a node-shared aggregation window whose pages other ranks
/// filled), the copy comes up short, and the kernel halves the piece of page cache it allocates for
/// the rest of the call, down to single 4 KiB pages. A 32 MiB block file written from the window
/// kept 7672 of its 8192 pages as single pages, and reading it back from the page cache ran at
/// 4.3 GB/s against 7.8-9.5 GB/s for the same bytes in 2 MiB folios (bench/mpi/RESULTS.md,
/// "files written from the window read back at page-cache speed").
#pragma once

#include <sys/uio.h>

#include <cstddef>

namespace hzio {

/// Maps every page of the `n` buffers of `iov` into this process (MADV_POPULATE_READ) when `fd`
/// is a buffered descriptor and they add up to 1 MiB or more; nothing for O_DIRECT (the kernel
/// pins the pages itself) or smaller writes. Advice only: a kernel without it, or a range it
/// refuses, leaves the write as it was.
void MapWriteSourcePages(int fd, const iovec* iov, size_t n);

/// The same for one buffer.
void MapWriteSourcePages(int fd, const void* data, size_t bytes);

}  // namespace hzio
