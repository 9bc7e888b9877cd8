#include "hzio/storage/block_table_file.h"

#include "hzio/util/error.h"

namespace hzio {

std::vector<BlockEntry> ReadBlockTable(const ReadFile& file, int version, int64_t slots) {
  const int64_t bytes = BlockTableBytes(version, slots);
  std::vector<uint8_t> raw(static_cast<size_t>(bytes));
  const uint64_t got = file.size() >= static_cast<uint64_t>(bytes)
                           ? file.ReadUpTo(0, static_cast<uint64_t>(bytes), raw.data())
                           : file.size();
  Check(got == static_cast<uint64_t>(bytes), ErrorCode::kCorrupt,
        file.path() + ": truncated: " + std::to_string(got < file.size() ? got : file.size()) +
            " bytes is shorter than its " + std::to_string(bytes) + "-byte block table");
  return DecodeBlockTable(raw.data(), bytes, version, slots, file.size(), file.path());
}

}  // namespace hzio
