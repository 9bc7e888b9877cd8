#include "hzio/access/block_file_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>

#include "hzio/storage/durable_file.h"
#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"

namespace hzio {

BlockFileTable ReadBlockFileTable(int fd, const std::string& path, int64_t slots) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw OsError(path, "cannot stat");
  BlockFileTable t;
  t.file_size = static_cast<uint64_t>(st.st_size);
  const auto bytes = static_cast<uint64_t>(BlockTableBytes(6, slots));
  Check(t.file_size >= bytes, ErrorCode::kCorrupt,
        path + ": truncated: " + std::to_string(t.file_size) + " bytes is shorter than its " + std::to_string(bytes) +
            "-byte block table");
  std::vector<uint8_t> raw(static_cast<size_t>(bytes));
  ReadExactlyAt(fd, raw.data(), bytes, 0, path);
  t.entries = DecodeBlockTable(raw.data(), static_cast<int64_t>(bytes), 6, slots, t.file_size, path);
  return t;
}

uint64_t UnreferencedBytes(const BlockFileTable& table, int64_t slots) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const BlockEntry& e : table.entries)
    if (e.Present()) ranges.emplace_back(e.offset, e.offset + e.size);
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = static_cast<uint64_t>(BlockTableBytes(6, slots)), reach = covered;
  for (const auto& [begin, end] : ranges) {
    const uint64_t from = std::max(begin, reach);
    if (end > from) covered += end - from;
    reach = std::max(reach, end);
  }
  return table.file_size > covered ? table.file_size - covered : 0;
}

void CarryPayloads(int from, const std::string& from_path, const std::vector<BlockEntry>& from_entries, int to,
                   const std::string& to_path, uint64_t& end, std::vector<BlockEntry>& to_entries,
                   const std::function<bool(size_t)>& take) {
  std::vector<size_t> slots;
  for (size_t s = 0; s < from_entries.size(); ++s)
    if (from_entries[s].Present() && take(s)) slots.push_back(s);
  std::sort(slots.begin(), slots.end(),
            [&](size_t a, size_t b) { return from_entries[a].offset < from_entries[b].offset; });
  for (size_t i = 0; i < slots.size();) {
    // A run of payloads that follow each other in `from` is one copy.
    size_t j = i + 1;
    uint64_t run_end = from_entries[slots[i]].offset + from_entries[slots[i]].size;
    while (j < slots.size() && from_entries[slots[j]].offset == run_end) run_end += from_entries[slots[j++]].size;
    const uint64_t run_start = from_entries[slots[i]].offset;
    CrashPoint("carry payloads to " + to_path);
    CopyBytes(from, run_start, to, end, run_end - run_start, from_path, to_path);
    for (size_t k = i; k < j; ++k) {
      const BlockEntry& e = from_entries[slots[k]];
      to_entries[slots[k]] = BlockEntry{end + (e.offset - run_start), e.size, e.flags};
    }
    end += run_end - run_start;
    i = j;
  }
}

void CopyBlockFilePacked(const std::string& from, int64_t from_slots, const std::string& to, int64_t to_slots,
                         bool sync) {
  Check(to_slots >= from_slots, ErrorCode::kInternal, to + ": a block table cannot shrink");
  ScopedFd in = OpenForReadingIfExists(from);
  Check(in.valid(), ErrorCode::kNotFound, from + ": vanished while being copied to " + to);
  const BlockFileTable table = ReadBlockFileTable(in.get(), from, from_slots);
  ScopedFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!out.valid()) throw OsError(to, "cannot create");
  std::vector<BlockEntry> entries(static_cast<size_t>(to_slots));
  uint64_t end = static_cast<uint64_t>(BlockTableBytes(6, to_slots));
  CarryPayloads(in.get(), from, table.entries, out.get(), to, end, entries, [](size_t) { return true; });
  const std::vector<uint8_t> encoded = EncodeBlockTable(entries);
  WriteExactlyAt(out.get(), encoded.data(), encoded.size(), 0, to);
  if (sync && ::fsync(out.get()) != 0) throw OsError(to, "fsync failed");
}

}  // namespace hzio
