/// The binary header of a block file (idx-format.md §4.5 for version 6, §4.10 for 1–5): one entry
/// per field and block slot with the payload's 64-bit offset, size and codec/layout flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hzio {

inline constexpr uint32_t kRowMajorFlag = 0x10;

struct BlockEntry {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t flags = 0;  // bits 0-3 codec code, bit 4 row-major

  /// §4.6: absent when offset or size is 0.
  bool Present() const { return offset != 0 && size != 0; }
  int codec_code() const { return static_cast<int>(flags & 15u); }
  bool row_major() const { return (flags & kRowMajorFlag) != 0; }
};

/// Bytes of the header of a file with `slots` = blocksperfile × nfields entries.
int64_t BlockTableBytes(int version, int64_t slots);

/// Version 6 (§4.5): a file header, then one entry per slot (field f, block position b: slot
/// f × blocksperfile + b). Writers that fill parts of a table (several aggregators of one shared
/// file) place them with these.
inline constexpr int64_t kBlockTableHeaderBytes = 40;
inline constexpr int64_t kBlockTableEntryBytes = 40;
/// Byte offset of slot `slot`'s entry in a version-6 file.
inline constexpr int64_t BlockTableEntryOffset(int64_t slot) { return kBlockTableHeaderBytes + kBlockTableEntryBytes * slot; }

/// Decodes a header. `file_size` bounds the entries: one pointing past the end of the file, or
/// into the header, is reported as kCorrupt naming `path` and the entry.
std::vector<BlockEntry> DecodeBlockTable(const uint8_t* bytes, int64_t length, int version,
                                         int64_t slots, uint64_t file_size, const std::string& path);

/// Encodes a version-6 header (file header + table), big-endian, offset low word first.
std::vector<uint8_t> EncodeBlockTable(const std::vector<BlockEntry>& entries);

}  // namespace hzio
