#include "hzio/access/classic_block_source.h"

#include <algorithm>
#include <filesystem>

#include "hzio/storage/block_table_file.h"
#include "hzio/storage/read_ahead.h"
#include "hzio/util/byte_buffer.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// A task reads and delivers up to this many blocks of one file; fewer when a fetch has few blocks,
// so that every core gets several tasks (a coarse read of 32 blocks is not one thread's work).
constexpr size_t kMaxBlocksPerTask = 32;
constexpr size_t kTasksPerThread = 4;
// Payloads closer than this are read with one pread (the gap is read and dropped); a run stays
// below kMaxRunBytes so its buffer lives in the cache while the sink decodes and places it —
// the copy pread makes out of the page cache then costs little (a mapping saved that copy, but
// a file truncated under it is SIGBUS).
constexpr uint64_t kMaxReadGap = 64 * 1024;
constexpr uint64_t kMaxRunBytes = 1024 * 1024;

}  // namespace

ClassicBlockSource::ClassicBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                                       std::string idx_path, std::optional<FileIdentity> idx_identity, Options options)
    : BlockSource(std::move(header), std::move(layout), idx_path),
      idx_path_(std::move(idx_path)),
      idx_identity_(idx_path_, idx_identity),
      options_(options),
      files_(this->header(), [&] {
        std::string dir = std::filesystem::path(idx_path_).parent_path().string();
        return dir.empty() ? std::string(".") : dir;
      }()),
      slots_(files_.blocks_per_file() * static_cast<int64_t>(this->header().fields.size())) {
  Check(this->header().arco == 0, ErrorCode::kUnsupported,
        idx_path_ + ": ARCO one-file-per-block datasets ((arco) > 0) are not supported");
  // The files of a PIDX chunked dataset hold chunk records: they are read under its stored header
  // (PidxStoredHeader), never under the presented one, whose blocks are built from them.
  Check(!this->header().pidx_chunking, ErrorCode::kInternal,
        idx_path_ + ": a PIDX chunked dataset's block files are read through PidxChunkSource");
}

std::string ClassicBlockSource::Version() const { return idx_identity_.Version(); }

bool ClassicBlockSource::Changed() const { return idx_identity_.Changed(); }

void ClassicBlockSource::ThrowShort(const std::string& path) const {
  if (Changed()) throw DatasetChangedError(idx_path_);
  throw Error(ErrorCode::kCorrupt, path + " is shorter than its block table says (truncated while reading?)");
}

std::shared_ptr<const ClassicBlockSource::FileTable> ClassicBlockSource::LoadTable(const std::string& path) {
  auto table = std::make_shared<FileTable>();
  table->path = path;
  table->file = ReadFile::OpenIfExists(path);
  try {
    if (table->file) table->entries = ReadBlockTable(*table->file, header().version, slots_);
  } catch (const Error& e) {
    // A table that does not fit its file was truncated or replaced: by a new version?
    if (e.code() == ErrorCode::kCorrupt && Changed()) throw DatasetChangedError(idx_path_);
    throw;
  }
  // A table read after the dataset was replaced may belong to the new version: never use it
  // under the old header.
  if (Changed()) throw DatasetChangedError(idx_path_);
  return table;
}

namespace {
bool HoldsBlocks(const std::vector<BlockEntry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const BlockEntry& e) { return e.Present(); });
}
}  // namespace

std::shared_ptr<const ClassicBlockSource::FileTable> ClassicBlockSource::Table(const std::string& path) {
  std::optional<Cached> cached;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = index_.find(path); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      cached = it->second->second;
    }
  }
  const std::optional<FileIdentity> now = StatIdentity(path);
  if (cached && cached->identity == now) return cached->table;
  if (cached && !now && cached->table->file && HoldsBlocks(cached->table->entries)) {
    // A file this source read blocks from is gone while the header still names it: a fault (deleted
    // by hand, a failing disk), not the format's missing block. Answering defaults would hand out
    // wrong samples as right.
    if (Changed()) throw DatasetChangedError(idx_path_);
    throw Error(ErrorCode::kIo, path + " vanished after its blocks were read, while the dataset's header (" +
                                    idx_path_ + ") is unchanged");
  }
  // New to the cache, or the file appeared, vanished or was replaced since its table was read.
  Cached fresh{LoadTable(path), std::nullopt};
  if (fresh.table->file) fresh.identity = fresh.table->file->identity();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(path); it != index_.end()) {
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.emplace_front(path, fresh);
  index_[path] = lru_.begin();
  while (lru_.size() > std::max<size_t>(options_.max_open_files, 1)) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  return fresh.table;
}

const BlockEntry& ClassicBlockSource::Entry(const FileTable& table, int field, uint64_t block) const {
  return table.entries[static_cast<size_t>(field * files_.blocks_per_file() + files_.PositionInFile(block))];
}

void ClassicBlockSource::ReadRange(const FileTable& table, uint64_t offset, uint64_t size, uint8_t* out) const {
  if (table.file->ReadUpTo(offset, size, out) != size) ThrowShort(table.path);
}

const uint8_t* ClassicBlockSource::ReadRangeUncached(const FileTable& table, uint64_t offset, uint64_t size,
                                                     LargeAllocation& staging, bool* direct) const {
  uint64_t got = 0;
  const uint8_t* bytes = table.file->ReadUncached(offset, size, staging, got, direct);
  if (got != size) ThrowShort(table.path);
  return bytes;
}

void ClassicBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) { FetchInto(keys, {}, sink); }

void ClassicBlockSource::FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                                   const BlockSink& sink) {
  struct Job {
    size_t index;
    int64_t time;
    uint64_t first;  // the block naming its file (§4.3)
    int64_t pos;
  };
  std::vector<Job> jobs;
  jobs.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    CheckKey(keys[i]);
    Check(header().time.Contains(keys[i].time), ErrorCode::kNotFound,
          name() + ": timestep " + std::to_string(keys[i].time) + " is not in the dataset");
    jobs.push_back(Job{i, keys[i].time, files_.FirstBlockInFile(keys[i].block), files_.PositionInFile(keys[i].block)});
  }
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) {
    return a.time != b.time ? a.time < b.time : a.first != b.first ? a.first < b.first : a.pos < b.pos;
  });
  // Files (one table lookup each), then tasks: runs of up to kBlocksPerTask jobs of one file.
  struct Group {
    size_t begin, end;
    std::shared_ptr<const FileTable> table;
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < jobs.size();) {
    size_t j = i + 1;
    while (j < jobs.size() && jobs[j].time == jobs[i].time && jobs[j].first == jobs[i].first) ++j;
    groups.push_back(Group{i, j, nullptr});
    i = j;
  }
  const size_t threads = options_.threads == 1 ? 1 : static_cast<size_t>(ThreadPool::Shared().size()) + 1;
  const size_t per_task = std::clamp<size_t>(jobs.size() / (kTasksPerThread * threads), 1, kMaxBlocksPerTask);
  std::vector<std::pair<size_t, size_t>> tasks;  // (group, first job)
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t i = groups[g].begin; i < groups[g].end; i += per_task) tasks.emplace_back(g, i);

  auto run = [&](int64_t n, const std::function<void(int64_t)>& fn) {
    if (options_.threads == 1 || n <= 1) {
      for (int64_t i = 0; i < n; ++i) fn(i);
    } else {
      ThreadPool::Shared().ParallelFor(n, fn);
    }
  };
  run(static_cast<int64_t>(groups.size()), [&](int64_t g) {
    Group& group = groups[static_cast<size_t>(g)];
    group.table = Table(files_.FilePath(jobs[group.begin].first, jobs[group.begin].time));
  });
  auto task_jobs = [&](size_t t) {
    const size_t begin = tasks[t].second;
    return std::make_pair(begin, std::min(groups[tasks[t].first].end, begin + per_task));
  };

  // Each task's bytes, read ahead a window before the task starts.
  std::vector<ReadAhead::Range> ranges(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    const FileTable& table = *groups[tasks[t].first].table;
    if (!table.file) continue;
    const auto [begin, end] = task_jobs(t);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = begin; i < end; ++i) {
      const BlockEntry& e = Entry(table, keys[jobs[i].index].field, keys[jobs[i].index].block);
      if (!e.Present()) continue;
      lo = std::min(lo, e.offset);
      hi = std::max(hi, e.offset + e.size);
    }
    if (hi > lo) ranges[t] = ReadAhead::Range{table.file, lo, hi - lo};
  }
  // Cold full-resolution reads of a 4 GiB dataset by the thread pool ran ~25% faster with it (16 to
  // 256 MiB measured the same); Options::read_ahead_bytes = 0 leaves it to the kernel.
  ReadAhead read_ahead(options_.read_ahead_bytes > 0 ? std::move(ranges) : std::vector<ReadAhead::Range>{},
                       options_.read_ahead_bytes);

  run(static_cast<int64_t>(tasks.size()), [&](int64_t t) {
    read_ahead.Started(static_cast<size_t>(t));
    const FileTable& table = *groups[tasks[static_cast<size_t>(t)].first].table;
    const auto [begin, end] = task_jobs(static_cast<size_t>(t));
    auto where = [&](const Job& job) { return table.path + ": block " + std::to_string(keys[job.index].block); };
    struct Present {
      const Job* job;
      BlockEntry entry;
    };
    std::vector<Present> present;
    for (size_t i = begin; i < end; ++i) {
      const Job& job = jobs[i];
      const BlockEntry entry = table.file ? Entry(table, keys[job.index].field, keys[job.index].block) : BlockEntry{};
      if (!entry.Present()) {
        EncodedBlock absent;
        absent.where = where(job);
        sink(job.index, std::move(absent));
        continue;
      }
      uint8_t* target = job.index < raw_targets.size() ? raw_targets[job.index] : nullptr;
      // Row-major blocks only: an hz block is permuted into the result from a buffer in cache.
      if (target && entry.row_major() && entry.codec_code() == static_cast<int>(Codec::kRaw) &&
          entry.size == DecodedBlockBytes(keys[job.index].field) && CopiesFast(entry.offset, target)) {
        // Straight into the receiver's memory: no copy after the one out of the page cache.
        ReadRange(table, entry.offset, entry.size, target);
        EncodedBlock b{true, Codec::kRaw, entry.row_major(), target, static_cast<size_t>(entry.size), nullptr, where(job)};
        sink(job.index, std::move(b));
        continue;
      }
      present.push_back(Present{&job, entry});
    }
    std::sort(present.begin(), present.end(),
              [](const Present& a, const Present& b) { return a.entry.offset < b.entry.offset; });
    for (size_t i = 0; i < present.size();) {
      const uint64_t run_start = present[i].entry.offset;
      uint64_t run_end = run_start + present[i].entry.size;
      size_t j = i + 1;
      while (j < present.size() && present[j].entry.offset <= run_end + kMaxReadGap &&
             std::max(run_end, present[j].entry.offset + present[j].entry.size) - run_start <= kMaxRunBytes) {
        run_end = std::max(run_end, present[j].entry.offset + present[j].entry.size);
        ++j;
      }
      std::shared_ptr<ByteBuffer> buffer = ThreadReusableBuffer();
      uint8_t* const data = AlignedLike(*buffer, run_start, run_end - run_start);
      ReadRange(table, run_start, run_end - run_start, data);
      for (size_t k = i; k < j; ++k) {
        const BlockEntry& e = present[k].entry;
        const std::string at = where(*present[k].job);
        EncodedBlock b{true, CodecFromCode(e.codec_code(), at), e.row_major(),
                       data + (e.offset - run_start), static_cast<size_t>(e.size), buffer, at};
        sink(present[k].job->index, std::move(b));
      }
      i = j;
    }
  });
}

}  // namespace hzio
