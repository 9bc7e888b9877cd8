#include "hzio/format/block_table.h"

#include "hzio/util/error.h"

namespace hzio {

namespace {

uint32_t LoadBE32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void StoreBE32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

}  // namespace

int64_t BlockTableBytes(int version, int64_t slots) {
  if (version >= 6) return BlockTableEntryOffset(slots);
  return (version == 1 ? 0 : 16) + 12 * slots;
}

std::vector<BlockEntry> DecodeBlockTable(const uint8_t* bytes, int64_t length, int version,
                                         int64_t slots, uint64_t file_size, const std::string& path) {
  const int64_t need = BlockTableBytes(version, slots);
  Check(length >= need, ErrorCode::kCorrupt,
        path + ": truncated block table (" + std::to_string(length) + " of " + std::to_string(need) + " bytes)");
  std::vector<BlockEntry> entries(static_cast<size_t>(slots));
  for (int64_t s = 0; s < slots; ++s) {
    BlockEntry& e = entries[static_cast<size_t>(s)];
    if (version >= 6) {
      const uint8_t* p = bytes + BlockTableEntryOffset(s);
      e.offset = uint64_t{LoadBE32(p + 8)} | (uint64_t{LoadBE32(p + 12)} << 32);
      e.size = LoadBE32(p + 16);
      e.flags = LoadBE32(p + 20);
    } else {
      const uint8_t* p = bytes + (version == 1 ? 0 : 16) + 12 * s;
      e.offset = LoadBE32(p);
      e.size = LoadBE32(p + 4);
      e.flags = LoadBE32(p + 8) != 0 ? 3u : 0u;  // legacy: non-zero = zip, always hz order
    }
    if (!e.Present()) continue;
    if (e.offset < static_cast<uint64_t>(need) || e.offset > file_size || e.size > file_size - e.offset)
      throw Error(ErrorCode::kCorrupt, path + ": corrupt block table: entry " + std::to_string(s) +
                                           " (offset " + std::to_string(e.offset) + ", size " +
                                           std::to_string(e.size) + ") lies outside the file's " +
                                           std::to_string(file_size) + " bytes");
  }
  return entries;
}

std::vector<uint8_t> EncodeBlockTable(const std::vector<BlockEntry>& entries) {
  std::vector<uint8_t> out(static_cast<size_t>(BlockTableBytes(6, static_cast<int64_t>(entries.size()))), 0);
  for (size_t s = 0; s < entries.size(); ++s) {
    const BlockEntry& e = entries[s];
    uint8_t* p = out.data() + BlockTableEntryOffset(s);
    Check(e.size <= 0xffffffffu, ErrorCode::kTooLarge, "block payload over 4 GiB");
    StoreBE32(p + 8, static_cast<uint32_t>(e.offset & 0xffffffffu));
    StoreBE32(p + 12, static_cast<uint32_t>(e.offset >> 32));
    StoreBE32(p + 16, static_cast<uint32_t>(e.size));
    StoreBE32(p + 20, e.flags);
  }
  return out;
}

}  // namespace hzio
