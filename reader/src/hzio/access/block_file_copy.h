/// Block files carried from one version of a dataset to the next (idx-format.md §4.5): the
/// table of a committed file read through a descriptor, its payloads copied into a new file
/// inside the kernel (copy_file_range), packed one after the other in their old order. This is how
/// a write keeps the blocks it does not replace, how adding a field widens every table (a new last
/// field adds blocksperfile entries at the end, §4.5: entry f*bpf + p, so old entries keep their
/// index), and how `verify --repair` drops bytes no entry references. A file is only ever created
/// new: committed files are never modified (access/dataset_transaction.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hzio/format/block_table.h"

namespace hzio {

/// The decoded, bounds-checked table of a version-6 block file with `slots` entries, read from
/// `fd`; kCorrupt naming `path` when the file is shorter than its table.
struct BlockFileTable {
  std::vector<BlockEntry> entries;
  uint64_t file_size = 0;
};
BlockFileTable ReadBlockFileTable(int fd, const std::string& path, int64_t slots);

/// Bytes of a file that neither its table nor any present entry covers (overlaps counted once).
uint64_t UnreferencedBytes(const BlockFileTable& table, int64_t slots);

/// Appends the present payloads of `from` (entries `from_entries`) whose slot `take(slot)` accepts
/// to `to` at `*end` (advanced), in their order in `from`, and records their new places in
/// `to_entries[slot]` (codec and layout flags kept). Adjacent payloads go in one copy.
void CarryPayloads(int from, const std::string& from_path, const std::vector<BlockEntry>& from_entries, int to,
                   const std::string& to_path, uint64_t& end, std::vector<BlockEntry>& to_entries,
                   const std::function<bool(size_t)>& take);

/// Writes the new file `to` holding every present payload of `from` (a table of `from_slots`
/// entries), packed, under a table of `to_slots` >= from_slots entries; `sync` fsyncs it.
void CopyBlockFilePacked(const std::string& from, int64_t from_slots, const std::string& to, int64_t to_slots,
                         bool sync);

}  // namespace hzio
