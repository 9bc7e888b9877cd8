/// The block table of an open block file (idx-format.md §4.5 for version 6, §4.10 for 1–5): read
/// with one pread and checked against the file's size. Shared by every reader of block files.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/format/block_table.h"
#include "hzio/storage/file.h"

namespace hzio {

/// The `slots` (= blocksperfile × nfields) entries of `file`'s table. Throws kCorrupt naming the
/// file when it is shorter than the table or an entry lies outside it, kIo for an OS error.
std::vector<BlockEntry> ReadBlockTable(const ReadFile& file, int version, int64_t slots);

}  // namespace hzio
