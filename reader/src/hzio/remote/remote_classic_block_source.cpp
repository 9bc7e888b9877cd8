#include "hzio/remote/remote_classic_block_source.h"

#include <algorithm>
#include <unordered_map>

#include "hzio/remote/byte_range.h"
#include "hzio/util/error.h"
#include "hzio/util/task_group.h"
#include "hzio/util/thread_pool.h"

namespace hzio::internal_remote {

namespace {

// Tables kept per source (each a few KiB: blocksperfile × fields × 20 bytes).
constexpr size_t kMaxTables = 4096;
// A server that ignores Range sends whole files: accepted up to this size.
constexpr uint64_t kMaxWholeFileBytes = uint64_t{256} << 20;

}  // namespace

RemoteClassicBlockSource::RemoteClassicBlockSource(std::shared_ptr<const IdxHeader> header,
                                                   std::shared_ptr<const BlockLayout> layout,
                                                   std::shared_ptr<const ObjectStore> store, std::string version,
                                                   std::string idx_validator)
    : ObjectBlockSource(std::move(header), std::move(layout), std::move(store), std::move(version),
                        std::move(idx_validator)),
      files_(this->header(), "."),
      slots_(files_.blocks_per_file() * static_cast<int64_t>(this->header().fields.size())) {
  Check(this->header().arco == 0, ErrorCode::kInternal, name() + ": an ARCO dataset is not read as block files");
}

void RemoteClassicBlockSource::Remember(const std::shared_ptr<const FileTable>& table) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(table->key); it != index_.end()) {
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front(table);
  index_[table->key] = lru_.begin();
  while (lru_.size() > kMaxTables) {
    index_.erase(lru_.back()->key);
    lru_.pop_back();
  }
}

void RemoteClassicBlockSource::Forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.erase(it->second);
    index_.erase(it);
  }
}

std::vector<std::shared_ptr<const RemoteClassicBlockSource::FileTable>> RemoteClassicBlockSource::Tables(
    const std::vector<std::string>& keys) {
  std::vector<std::shared_ptr<const FileTable>> out(keys.size());
  std::vector<size_t> missing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (auto it = index_.find(keys[i]); it != index_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);
        out[i] = *it->second;
      } else {
        missing.push_back(i);
      }
    }
  }
  if (missing.empty()) return out;
  const uint64_t table_bytes = static_cast<uint64_t>(BlockTableBytes(header().version, slots_));
  std::vector<ObjectStore::Get> gets;
  for (size_t i : missing) {
    ObjectStore::Get get;
    get.key = keys[i];
    get.length = table_bytes;
    get.max_bytes = static_cast<size_t>(kMaxWholeFileBytes);
    gets.push_back(std::move(get));
  }
  store().GetMany(gets, [&](size_t g, HttpResponse&& res) {
    const std::string& key = gets[g].key;
    auto table = std::make_shared<FileTable>();
    table->key = key;
    if (res.status == 404) {  // §4.6: no file, no blocks
      out[missing[g]] = table;
      return;
    }
    if (res.status != 200 && res.status != 206 && res.status != 416) throw store().ResponseError(key, res);
    const std::string url = store().Url(key);
    try {
      Check(res.status != 416, ErrorCode::kCorrupt, url + ": empty file (no block table)");
      table->exists = true;
      table->etag = res.Header("etag");
      table->size = ObjectSize(res).value_or(UINT64_MAX);
      const size_t have = std::min<size_t>(res.body.size(), static_cast<size_t>(table_bytes));
      table->entries = DecodeBlockTable(reinterpret_cast<const uint8_t*>(res.body.data()), static_cast<int64_t>(have),
                                        header().version, slots_, table->size, url);
    } catch (const Error& e) {
      // A table that does not fit its file: truncated, or replaced along with the dataset?
      if (e.code() == ErrorCode::kCorrupt && IdxChanged()) throw ChangedError();
      throw;
    }
    out[missing[g]] = table;
  });
  for (size_t m : missing) Remember(out[m]);
  return out;
}

void RemoteClassicBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) {
  // Which file each key's block lives in, and its slot there (§4.3).
  std::vector<std::string> file_keys;
  std::unordered_map<std::string, size_t> file_index;
  struct Job {
    size_t index;
    size_t file;
    int64_t slot;
  };
  std::vector<Job> jobs;
  jobs.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const BlockKey& k = keys[i];
    CheckKey(k);
    Check(header().time.Contains(k.time), ErrorCode::kNotFound,
          name() + ": timestep " + std::to_string(k.time) + " is not in the dataset");
    const std::string key = store().Key(files_.FilePath(k.block, k.time));
    auto [it, fresh] = file_index.emplace(key, file_keys.size());
    if (fresh) file_keys.push_back(key);
    jobs.push_back(Job{i, it->second, k.field * files_.blocks_per_file() + files_.PositionInFile(k.block)});
  }
  const std::vector<std::shared_ptr<const FileTable>> tables = Tables(file_keys);

  auto where = [&](size_t file, size_t index) {
    return store().Url(file_keys[file]) + ": block " + std::to_string(keys[index].block);
  };
  struct Part {
    size_t index;
    BlockEntry entry;
  };
  std::vector<std::vector<Part>> per_file(file_keys.size());
  for (const Job& job : jobs) {
    const FileTable& t = *tables[job.file];
    const BlockEntry entry = t.exists ? t.entries[static_cast<size_t>(job.slot)] : BlockEntry{};
    if (entry.Present()) {
      per_file[job.file].push_back(Part{job.index, entry});
    } else {
      EncodedBlock absent;
      absent.where = where(job.file, job.index);
      sink(job.index, std::move(absent));
    }
  }

  // Nearby payloads of a file share one range request.
  struct Range {
    size_t file;
    uint64_t offset, length;
    std::vector<Part> parts;
  };
  std::vector<Range> ranges;
  for (size_t f = 0; f < per_file.size(); ++f) {
    std::vector<Part>& parts = per_file[f];
    std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.entry.offset < b.entry.offset; });
    for (size_t i = 0; i < parts.size();) {
      Range r{f, parts[i].entry.offset, parts[i].entry.size, {parts[i]}};
      size_t j = i + 1;
      for (; j < parts.size(); ++j) {
        const uint64_t end = r.offset + r.length;
        const BlockEntry& e = parts[j].entry;
        const uint64_t new_end = std::max(end, e.offset + e.size);
        if (e.offset > end + kMaxGapBytes || new_end - r.offset > kMaxRangeBytes) break;
        r.length = new_end - r.offset;
        r.parts.push_back(parts[j]);
      }
      ranges.push_back(std::move(r));
      i = j;
    }
  }
  if (ranges.empty()) return;
  std::vector<ObjectStore::Get> gets;
  gets.reserve(ranges.size());
  for (const Range& r : ranges) {
    const FileTable& t = *tables[r.file];
    ObjectStore::Get get;
    get.key = t.key;
    get.offset = r.offset;
    get.length = r.length;
    get.if_match = t.etag;
    get.max_bytes = static_cast<size_t>(std::max(r.length, std::min(t.size, kMaxWholeFileBytes)));
    gets.push_back(std::move(get));
  }

  // Decoding and placing run on the pool while the transfers go on; a bounded backlog.
  ThreadPool& pool = ThreadPool::Shared();
  TaskGroup tasks(&pool, DecodeBacklog(store().client(), pool.size()));
  store().GetMany(gets, [&](size_t g, HttpResponse&& res) {
    if (tasks.failed()) tasks.Wait();  // rethrows the error, ending the transfers
    const Range& r = ranges[g];
    const std::string& key = file_keys[r.file];
    if (res.status == 404 || res.status == 412 || res.status == 416 || res.status == 200 || res.status == 206) {
      const std::optional<std::string_view> bytes = RangeBytes(res, r.offset, r.length);
      if (!bytes) {
        // Removed, replaced (the ETag no longer matches) or cut short after its table was read.
        Forget(key);
        if (IdxChanged()) throw ChangedError();
        if (res.status == 404) {  // gone: its blocks are absent now, as for a file never written
          for (const Part& p : r.parts) {
            EncodedBlock absent;
            absent.where = where(r.file, p.index);
            sink(p.index, std::move(absent));
          }
          return;
        }
        throw Error(ErrorCode::kCorrupt,
                    store().Url(key) + (res.status == 412 ? " was replaced while reading (its ETag changed)"
                                                          : " is shorter than its block table says (truncated?)") +
                        ", but the dataset's .idx did not change");
      }
      const size_t skip = static_cast<size_t>(bytes->data() - res.body.data());
      auto body = std::make_shared<std::string>(std::move(res.body));
      const uint8_t* base = reinterpret_cast<const uint8_t*>(body->data()) + skip;
      tasks.Submit([&, g, body, base] {
        const Range& range = ranges[g];
        for (const Part& p : range.parts) {
          const std::string at = where(range.file, p.index);
          EncodedBlock b{true,     CodecFromCode(p.entry.codec_code(), at), p.entry.row_major(),
                         base + (p.entry.offset - range.offset), static_cast<size_t>(p.entry.size), body, at};
          sink(p.index, std::move(b));
        }
      });
      return;
    }
    throw store().ResponseError(key, res);
  });
  tasks.Wait();
}

}  // namespace hzio::internal_remote
