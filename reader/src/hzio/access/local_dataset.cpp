#include "hzio/access/local_dataset.h"

#include <algorithm>

#include "hzio/access/sample_copy.h"
#include "hzio/codec/codec.h"
#include "hzio/util/byte_buffer.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// Each cached table keeps its file open and mapped: stay far below common descriptor limits
// (1024) even when a server holds many datasets. Re-reading a table is one small pread.
constexpr size_t kMaxCachedTables = 256;
constexpr int64_t kBlocksPerTask = 32;
constexpr uint64_t kMaxReadGap = 256 * 1024;  // merge payload reads separated by less than this

struct BlockJob {
  uint64_t block;
  std::string path;
  int64_t pos;
};

}  // namespace

LocalDataset::LocalDataset(IdxHeader header, std::string source, std::string idx_dir, OpenOptions options)
    : Dataset(std::move(header), std::move(source), options), files_(header_, std::move(idx_dir)) {
  Check(header_.arco == 0, ErrorCode::kUnsupported,
        source_ + ": ARCO one-file-per-block datasets ((arco) > 0) are not supported");
}

std::shared_ptr<const LocalDataset::FileTable> LocalDataset::Table(const std::string& path) {
  {
    std::lock_guard<std::mutex> lock(tables_mu_);
    auto it = tables_.find(path);
    if (it != tables_.end()) return it->second;
  }
  auto table = std::make_shared<FileTable>();
  table->file = ReadFile::OpenIfExists(path);
  if (table->file) {
    const int64_t slots = files_.blocks_per_file() * static_cast<int64_t>(header_.fields.size());
    const int64_t bytes = BlockTableBytes(header_.version, slots);
    Check(table->file->size() >= static_cast<uint64_t>(bytes), ErrorCode::kCorrupt,
          path + ": truncated: " + std::to_string(table->file->size()) + " bytes is shorter than its " +
              std::to_string(bytes) + "-byte block table");
    std::vector<uint8_t> raw(static_cast<size_t>(bytes));
    table->file->ReadAt(0, static_cast<uint64_t>(bytes), raw.data());
    table->entries = DecodeBlockTable(raw.data(), bytes, header_.version, slots, table->file->size(), path);
  }
  std::lock_guard<std::mutex> lock(tables_mu_);
  if (tables_.size() >= kMaxCachedTables) tables_.clear();
  tables_[path] = table;
  return table;
}

LocalDataset::Location LocalDataset::Locate(int field, int64_t time, uint64_t block) {
  Check(block < layout_->total_blocks(), ErrorCode::kOutOfRange,
        source_ + ": block " + std::to_string(block) + " is beyond the last block " +
            std::to_string(layout_->total_blocks() - 1));
  auto table = Table(files_.FilePath(block, time));
  Location loc{table->file, BlockEntry{}};
  if (table->file)
    loc.entry = table->entries[static_cast<size_t>(field * files_.blocks_per_file() + files_.PositionInFile(block))];
  return loc;
}

std::optional<DecodedBlock> LocalDataset::ReadBlock(int field, int64_t time, uint64_t block) {
  Check(field >= 0 && field < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
        source_ + ": no field index " + std::to_string(field));
  Check(header_.time.Contains(time), ErrorCode::kNotFound,
        source_ + ": timestep " + std::to_string(time) + " is not in the dataset");
  Location loc = Locate(field, time, block);
  if (!loc.file || !loc.entry.Present()) return std::nullopt;
  const DType& dtype = header_.fields[static_cast<size_t>(field)].dtype;
  const std::string where = loc.file->path() + ": block " + std::to_string(block);
  std::vector<uint8_t> payload(static_cast<size_t>(loc.entry.size));
  loc.file->ReadAt(loc.entry.offset, loc.entry.size, payload.data());
  DecodedBlock out;
  out.id = block;
  out.row_major = loc.entry.row_major();
  out.grid = layout_->BlockGrid(block);
  out.bytes.resize(static_cast<size_t>(dtype.BytesFor(layout_->samples_per_block())));
  const Field& f = header_.fields[static_cast<size_t>(field)];
  Decode(CodecSpec::ForBlock(CodecFromCode(loc.entry.codec_code(), where), f.compression), payload.data(),
         payload.size(), SampleShape{dtype, out.grid.count}, out.bytes.data(), out.bytes.size(), where);
  return out;
}

void LocalDataset::ReadInto(const Resolved& q, uint8_t* out) {
  const Field& field = header_.fields[static_cast<size_t>(q.field)];
  const int64_t sample_bytes = field.dtype.SampleBytes();
  const size_t block_bytes = static_cast<size_t>(field.dtype.BytesFor(layout_->samples_per_block()));
  const std::vector<uint8_t> fill = field.DefaultSample();
  const Box region = q.grid.LogicBox();
  const int dims = layout_->dims();

  // Every sample of the result belongs to exactly one of these blocks, so the result needs no
  // initial fill: present blocks are scattered, absent ones filled with the default value.
  std::vector<uint64_t> blocks = layout_->BlocksInRegion(region, q.levels);
  std::vector<BlockJob> jobs;
  jobs.reserve(blocks.size());
  for (uint64_t b : blocks) jobs.push_back(BlockJob{b, files_.FilePath(b, q.time), files_.PositionInFile(b)});
  std::stable_sort(jobs.begin(), jobs.end(), [](const BlockJob& a, const BlockJob& b) {
    return a.path != b.path ? a.path < b.path : a.pos < b.pos;
  });
  // Tasks: runs of up to kBlocksPerTask blocks of one file.
  std::vector<std::pair<size_t, size_t>> tasks;
  for (size_t i = 0; i < jobs.size();) {
    size_t j = i + 1;
    while (j < jobs.size() && jobs[j].path == jobs[i].path && static_cast<int64_t>(j - i) < kBlocksPerTask) ++j;
    tasks.emplace_back(i, j);
    i = j;
  }
  const SampleSide dst{out, q.grid.count, nullptr};

  auto scatter = [&](uint64_t block, const uint8_t* samples, bool row_major) {
    const Grid grid = layout_->BlockGrid(block);
    AxisCopy plan[kMaxDims];
    if (!PlanGridCopy(grid, q.grid, region, plan)) return;
    if (!samples) {
      FillSamples(plan, dims, dst, fill.data(), sample_bytes);
      return;
    }
    const uint32_t* map = row_major ? nullptr : layout_->RowMajorToHz(layout_->BlockLevel(block)).data();
    CopySamples(plan, dims, SampleSide{const_cast<uint8_t*>(samples), grid.count, map}, dst, sample_bytes);
  };

  auto run_task = [&](int64_t t) {
    thread_local ByteBuffer io_buffer, decoded;
    const auto [begin, end] = tasks[static_cast<size_t>(t)];
    auto table = Table(jobs[begin].path);
    struct Present {
      uint64_t block;
      BlockEntry entry;
    };
    std::vector<Present> present;
    // Whether the result takes every sample of every present block: asked only when whole blocks
    // are to be read with pread (OpenOptions::map_whole_blocks off).
    bool all_whole = !options_.map_whole_blocks;
    for (size_t i = begin; i < end; ++i) {
      const BlockEntry entry = table->file
          ? table->entries[static_cast<size_t>(q.field * files_.blocks_per_file() + jobs[i].pos)]
          : BlockEntry{};
      if (!entry.Present()) {
        scatter(jobs[i].block, nullptr, false);
        continue;
      }
      present.push_back(Present{jobs[i].block, entry});
      if (all_whole) {
        const Grid grid = layout_->BlockGrid(jobs[i].block);
        AxisCopy plan[kMaxDims];
        all_whole = PlanGridCopy(grid, q.grid, region, plan) && PlannedSamples(plan, dims) == grid.NumSamples();
      }
    }
    std::sort(present.begin(), present.end(),
              [](const Present& a, const Present& b) { return a.entry.offset < b.entry.offset; });
    // Payloads come straight from the file's mapping (no copy out of the page cache), unless
    // the options want blocks taken whole read with pread (OpenOptions::map_whole_blocks); without
    // a mapping, runs of nearby payloads are read with one pread each.
    const uint8_t* mapped = table->file && !all_whole ? table->file->Mapped() : nullptr;
    for (size_t i = 0; i < present.size();) {
      size_t j = i + 1;
      uint64_t run_start = present[i].entry.offset;
      const uint8_t* run = nullptr;
      if (mapped) {
        run = mapped + run_start;
      } else {
        uint64_t run_end = present[i].entry.offset + present[i].entry.size;
        while (j < present.size() && present[j].entry.offset <= run_end + kMaxReadGap) {
          run_end = std::max(run_end, present[j].entry.offset + present[j].entry.size);
          ++j;
        }
        io_buffer.Resize(static_cast<size_t>(run_end - run_start));
        table->file->ReadAt(run_start, run_end - run_start, io_buffer.data());
        run = io_buffer.data();
      }
      for (size_t k = i; k < j; ++k) {
        const BlockEntry& e = present[k].entry;
        const uint8_t* payload = run + (e.offset - run_start);
        const std::string where = table->file->path() + ": block " + std::to_string(present[k].block);
        const Codec codec = CodecFromCode(e.codec_code(), where);
        const uint8_t* samples = payload;
        if (codec == Codec::kRaw) {
          Check(e.size == block_bytes, ErrorCode::kCorrupt,
                where + ": raw block has " + std::to_string(e.size) + " bytes, expected " + std::to_string(block_bytes));
        } else {
          decoded.Resize(block_bytes);
          Decode(CodecSpec::ForBlock(codec, field.compression), payload, static_cast<size_t>(e.size),
                 SampleShape{field.dtype, layout_->BlockGrid(present[k].block).count}, decoded.data(), block_bytes,
                 where);
          samples = decoded.data();
        }
        scatter(present[k].block, samples, e.row_major());
      }
      i = j;
    }
  };

  if (options_.threads == 1 || tasks.size() <= 1) {
    for (size_t t = 0; t < tasks.size(); ++t) run_task(static_cast<int64_t>(t));
  } else {
    ThreadPool::Shared().ParallelFor(static_cast<int64_t>(tasks.size()), run_task);
  }
}

}  // namespace hzio
