#include "hzio/access/dataset_extend.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "hzio/access/dataset_writer.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/hz/block_layout.h"
#include "hzio/storage/file.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

std::string Directory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string Stem(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// Rewrites one block file with `added` empty slots appended to its table (§4.5: entry
// f*bpf + p, so a new last field leaves every existing entry where it was).
void WidenBlockFile(const std::string& path, int64_t old_slots, int64_t added) {
  std::shared_ptr<ReadFile> in = ReadFile::OpenIfExists(path);
  if (!in) return;
  const auto old_table = static_cast<uint64_t>(BlockTableBytes(6, old_slots));
  const auto new_table = static_cast<uint64_t>(BlockTableBytes(6, old_slots + added));
  Check(in->size() >= old_table, ErrorCode::kCorrupt,
        path + ": truncated block table (" + std::to_string(in->size()) + " bytes, the table needs " +
            std::to_string(old_table) + ")");
  std::vector<uint8_t> raw(old_table);
  in->ReadAt(0, old_table, raw.data());
  std::vector<BlockEntry> entries =
      DecodeBlockTable(raw.data(), static_cast<int64_t>(old_table), 6, old_slots, in->size(), path);
  const uint64_t shift = new_table - old_table;
  for (BlockEntry& e : entries)
    if (e.offset != 0) e.offset += shift;
  entries.resize(static_cast<size_t>(old_slots + added));
  const std::vector<uint8_t> table = EncodeBlockTable(entries);
  Check(table.size() == new_table, ErrorCode::kInternal, path + ": block table size mismatch");

  const std::string tmp = path + ".hzio-widen";
  {
    WriteFile out(tmp, true);
    out.WriteAt(0, table.data(), table.size());
    std::vector<uint8_t> chunk(size_t{16} << 20);
    for (uint64_t pos = old_table; pos < in->size(); pos += chunk.size()) {
      const uint64_t n = std::min<uint64_t>(chunk.size(), in->size() - pos);
      in->ReadAt(pos, n, chunk.data());
      out.WriteAt(pos + shift, chunk.data(), n);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw Error(ErrorCode::kIo, "cannot replace " + path + ": " + ec.message());
  }
}

}  // namespace

IdxHeader AddTimestep(const std::string& idx_path, IdxHeader header, int64_t time) {
  if (header.time.Contains(time)) return header;
  Check(!header.time.tmpl.empty(), ErrorCode::kUnsupported,
        idx_path + " has no time template, so it holds one timestep only (create it with "
                   "`hzio create --time T0:T1`, or convert the first array with --time)");
  std::vector<TimeRange> ranges = header.time.ranges;
  ranges.push_back(TimeRange{time, time, 1});
  std::sort(ranges.begin(), ranges.end(), [](const TimeRange& a, const TimeRange& b) { return a.from < b.from; });
  std::vector<TimeRange> merged;
  for (const TimeRange& r : ranges) {  // join runs of consecutive timesteps: "0 2 time_%04d/"
    if (!merged.empty() && merged.back().step == 1 && r.step == 1 && r.from <= merged.back().to + 1)
      merged.back().to = std::max(merged.back().to, r.to);
    else
      merged.push_back(r);
  }
  header.time.ranges = std::move(merged);
  header.has_time = true;
  WriteFileAtomically(idx_path, header.ToText());
  return header;
}

IdxHeader AddField(const std::string& idx_path, IdxHeader header, const Field& field) {
  Check(header.version == 6, ErrorCode::kUnsupported, idx_path + ": only version 6 datasets can get new fields");
  Check(!header.time.any, ErrorCode::kUnsupported,
        idx_path + ": its timesteps are '* *', so its block files cannot be listed to add a field");
  for (const Field& f : header.fields)
    Check(f.name != field.name, ErrorCode::kInvalidArgument, idx_path + " already has a field '" + field.name + "'");

  const int64_t bpf = header.blocks_per_file;
  const auto old_slots = static_cast<int64_t>(header.fields.size()) * bpf;
  IdxHeader grown = header;
  grown.fields.push_back(field);
  grown.Validate(Stem(idx_path));  // refuses tables that would grow beyond a sane size

  // Every file that can hold blocks of the dataset box, at every declared timestep.
  const BlockLayout layout(header.bitmask, header.bits_per_block);
  const BlockFiles files(header, Directory(idx_path));
  std::set<uint64_t> first_blocks;
  for (uint64_t b : layout.BlocksInRegion(header.box, LevelRange{0, layout.maxh()}))
    first_blocks.insert(files.FirstBlockInFile(b));
  for (int64_t t : header.time.List())
    for (uint64_t first : first_blocks) WidenBlockFile(files.FilePath(first, t), old_slots, bpf);

  WriteFileAtomically(idx_path, grown.ToText());
  return grown;
}

}  // namespace hzio
