#include "hzio/access/dataset_writer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unordered_map>

#include "hzio/access/sample_copy.h"
#include "hzio/codec/codec.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/hz/block_layout.h"
#include "hzio/storage/file.h"
#include "hzio/storage/write_queue.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

void WriteFileAtomically(const std::string& path, const std::string& text, bool sync) {
  MakeParentDirectories(path);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    WriteFile f(tmp, true);
    f.WriteAt(0, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    if (sync) f.Sync();
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorCode::kIo, path + ": cannot rename the new header into place");
  }
}

void CreateEmptyDataset(const std::string& idx_path, const IdxHeader& header) {
  Check(!FileExists(idx_path), ErrorCode::kInvalidArgument, idx_path + ": already exists");
  IdxHeader h = header;
  h.Validate(std::filesystem::path(idx_path).stem().string());
  WriteFileAtomically(idx_path, h.ToText());
}

namespace {

constexpr size_t kBatch = 64;  // blocks encoded and written together

std::string Stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

std::string Dir(const std::string& path) {
  std::string d = std::filesystem::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

// Geometry and fields must match for a writer to add data to an existing dataset.
void CheckCompatible(const IdxHeader& existing, const IdxHeader& wanted, const std::string& path) {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::kInvalidArgument, path + ": existing dataset has a different " + what);
  };
  if (!(existing.box == wanted.box)) fail("box");
  if (!(existing.bitmask == wanted.bitmask)) fail("bitmask");
  if (existing.bits_per_block != wanted.bits_per_block) fail("bitsperblock");
  if (existing.blocks_per_file != wanted.blocks_per_file) fail("blocksperfile");
  if (existing.fields.size() != wanted.fields.size()) fail("number of fields");
  for (size_t i = 0; i < existing.fields.size(); ++i)
    if (existing.fields[i].name != wanted.fields[i].name || !(existing.fields[i].dtype == wanted.fields[i].dtype))
      fail("field " + std::to_string(i));
}

}  // namespace

class DatasetWriter::Impl {
 public:
  Impl(std::string idx_path, IdxHeader header, WriterOptions options)
      : idx_path_(std::move(idx_path)), options_(std::move(options)) {
    header.Validate(Stem(idx_path_));
    if (FileExists(idx_path_)) {
      Check(options_.allow_existing, ErrorCode::kInvalidArgument,
            idx_path_ + ": a dataset already exists there (refusing to overwrite it)");
      IdxHeader existing = IdxHeader::Parse(ReadWholeFile(idx_path_), idx_path_, Stem(idx_path_));
      CheckCompatible(existing, header, idx_path_);
      header_ = std::move(existing);
      existing_dataset_ = true;
    } else {
      header_ = std::move(header);
    }
    Check(header_.version == 6, ErrorCode::kUnsupported, idx_path_ + ": only version 6 datasets can be written");
    Check(header_.arco == 0, ErrorCode::kUnsupported, idx_path_ + ": ARCO datasets cannot be written");
    for (const Field& f : header_.fields) {
      Check(f.dtype.ByteAligned(), ErrorCode::kUnsupported,
            idx_path_ + ": field '" + f.name + "' dtype " + f.dtype.ToString() + " is not whole bytes");
      // Every codec can be written, but png, jpg and zfp hold only some dtypes and block shapes
      // (idx-format.md §5): refuse those now, before any data, for every level's block grid.
      const std::string what = idx_path_ + ": field '" + f.name + "' compression '" + f.compression + "'";
      CodecSpec spec;
      try {
        spec = CodecSpec::Parse(f.compression);
      } catch (const Error& e) {
        throw Error(e.code(), idx_path_ + ": field '" + f.name + "': " + e.what());
      }
      const BlockLayout levels(header_.bitmask, header_.bits_per_block);
      for (uint64_t b = 0; b < levels.total_blocks(); b = b == 0 ? 1 : 2 * b)
        CheckCodecFits(spec, SampleShape{f.dtype, levels.BlockGrid(b).count}, what);
      codecs_.push_back(spec);
      default_samples_.push_back(f.DefaultSample());
    }
    expected_ = header_.box.Size().Product();
    layout_ = std::make_unique<BlockLayout>(header_.bitmask, header_.bits_per_block);
    files_ = std::make_unique<BlockFiles>(header_, Dir(idx_path_));
    slots_ = files_->blocks_per_file() * static_cast<int64_t>(header_.fields.size());
    queue_ = std::make_unique<WriteQueue>(2 * kBatch, [this](ByteBuffer b) { GiveBuffer(std::move(b)); });
    pool_ = options_.threads == 0 ? &ThreadPool::Shared() : nullptr;
    if (options_.threads > 1) owned_pool_ = std::make_unique<ThreadPool>(options_.threads - 1), pool_ = owned_pool_.get();
  }

  const IdxHeader& header() const { return header_; }

  void Write(int field, int64_t time, const Box& box, const uint8_t* data) {
    Check(!finished_, ErrorCode::kInvalidArgument, idx_path_ + ": Write after Finish");
    Check(field >= 0 && field < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
          idx_path_ + ": no field index " + std::to_string(field));
    Check(header_.time.Contains(time), ErrorCode::kNotFound,
          idx_path_ + ": timestep " + std::to_string(time) + " is not declared in the dataset");
    Check(box.dims() == header_.dims() && !box.Empty(), ErrorCode::kInvalidArgument,
          idx_path_ + ": write box " + box.ToRangesString() + " is empty or has the wrong number of axes");
    Check(box.Intersect(header_.box) == box, ErrorCode::kOutOfRange,
          idx_path_ + ": write box " + box.ToRangesString() + " is not inside the dataset box " +
              header_.box.ToRangesString());
    const int64_t sample_bytes = header_.fields[static_cast<size_t>(field)].dtype.SampleBytes();
    const Grid source{box.p1, Point(box.dims(), 1), box.Size()};
    std::vector<uint64_t> blocks = layout_->BlocksInRegion(box, LevelRange{0, header_.maxh()});
    // Batches of blocks, so completed blocks are flushed and their buffers reused before the next
    // batch allocates: memory stays bounded and fresh pages are rarely faulted in.
    struct Piece {
      Pending* pending = nullptr;
      AxisCopy plan[kMaxDims];
    };
    std::vector<Piece> pieces(std::min(blocks.size(), kBatch));
    for (size_t start = 0; start < blocks.size(); start += kBatch) {
      const size_t n = std::min(kBatch, blocks.size() - start);
      for (size_t i = 0; i < n; ++i) {
        const Grid grid = layout_->BlockGrid(blocks[start + i]);
        pieces[i].pending = nullptr;
        if (!PlanGridCopy(source, grid, box, pieces[i].plan)) continue;
        // A block this write fills entirely needs no default-value fill first.
        const bool covers_block = PlannedSamples(pieces[i].plan, header_.dims()) == grid.NumSamples();
        pieces[i].pending = &GetPending(field, time, blocks[start + i], covers_block);
      }
      RunParallel(static_cast<int64_t>(n), [&](int64_t i) {
        Piece& piece = pieces[static_cast<size_t>(i)];
        if (piece.pending == nullptr) return;
        Pending& p = *piece.pending;
        const uint32_t* map = p.row_major ? nullptr : layout_->RowMajorToHz(layout_->BlockLevel(p.block)).data();
        CopySamples(piece.plan, header_.dims(), SampleSide{const_cast<uint8_t*>(data), source.count, nullptr},
                    SampleSide{p.samples.data(), p.grid.count, map}, sample_bytes);
        p.remaining -= PlannedSamples(piece.plan, header_.dims());
      });
      std::vector<Pending*> done;
      for (size_t i = 0; i < n; ++i)
        if (pieces[i].pending != nullptr && pieces[i].pending->remaining <= 0) done.push_back(pieces[i].pending);
      FlushBlocks(done);
    }
    written_ += box.Size().Product();
    if (options_.progress) options_.progress(written_, expected_);
  }

  void Finish() {
    Check(!finished_, ErrorCode::kInvalidArgument, idx_path_ + ": Finish called twice");
    std::vector<Pending*> rest;
    for (auto& [key, p] : pending_) rest.push_back(p.get());
    std::sort(rest.begin(), rest.end(), [](const Pending* a, const Pending* b) { return a->order < b->order; });
    FlushBlocks(rest);
    queue_->Drain();
    // Block tables go in after every payload; the .idx goes in last of all.
    for (auto& [path, file] : open_files_) {
      WriteFile f(path, false);
      std::vector<uint8_t> table = EncodeBlockTable(file.entries);
      f.WriteAt(0, table.data(), table.size());
      if (options_.sync) f.Sync();
    }
    if (!existing_dataset_) WriteFileAtomically(idx_path_, header_.ToText(), options_.sync);
    finished_ = true;
  }

 private:
  struct Pending {
    int field;
    int64_t time;
    uint64_t block;
    uint64_t order;
    Grid grid;
    bool row_major;
    int64_t remaining;  // samples inside the dataset box not yet written
    ByteBuffer samples;
  };
  struct OpenBlockFile {
    std::vector<BlockEntry> entries;
    uint64_t end = 0;  // where the next payload goes
    std::unique_ptr<std::mutex> mu = std::make_unique<std::mutex>();
  };

  static std::string Key(int field, int64_t time, uint64_t block) {
    return std::to_string(field) + "/" + std::to_string(time) + "/" + std::to_string(block);
  }

  void RunParallel(int64_t n, const std::function<void(int64_t)>& fn) {
    if (pool_ == nullptr || n <= 1) {
      for (int64_t i = 0; i < n; ++i) fn(i);
    } else {
      pool_->ParallelFor(n, fn);
    }
  }

  // Samples of the block's grid inside the dataset box: the block is complete when all arrived.
  int64_t SamplesInsideBox(const Grid& g) const {
    AxisCopy plan[kMaxDims];
    if (!PlanGridCopy(g, g, header_.box, plan)) return 0;
    return PlannedSamples(plan, header_.dims());
  }

  Pending& GetPending(int field, int64_t time, uint64_t block, bool covers_block) {
    const std::string key = Key(field, time, block);
    auto it = pending_.find(key);
    if (it != pending_.end()) return *it->second;
    auto p = std::make_unique<Pending>();
    p->field = field;
    p->time = time;
    p->block = block;
    p->order = next_order_++;
    p->grid = layout_->BlockGrid(block);
    p->remaining = SamplesInsideBox(p->grid);
    const Field& f = header_.fields[static_cast<size_t>(field)];
    const size_t bytes = static_cast<size_t>(f.dtype.BytesFor(layout_->samples_per_block()));
    p->row_major = !f.hz_layout;
    // A block already on disk (an existing dataset, or flushed earlier) is read, merged, rewritten.
    OpenBlockFile& file = File(files_->FilePath(block, time));
    const BlockEntry entry = file.entries[static_cast<size_t>(field * files_->blocks_per_file() + files_->PositionInFile(block))];
    p->samples = TakeBuffer(bytes);
    if (entry.Present()) {
      queue_->Drain();  // the block may have been flushed earlier and still be on its way to disk
      const std::string path = files_->FilePath(block, time);
      std::vector<uint8_t> payload(static_cast<size_t>(entry.size));
      WriteFile(path, false).ReadAt(entry.offset, entry.size, payload.data());
      Decode(CodecSpec::ForBlock(CodecFromCode(entry.codec_code(), path), f.compression), payload.data(),
             payload.size(), SampleShape{f.dtype, p->grid.count}, p->samples.data(), bytes,
             path + ": block " + std::to_string(block));
      p->row_major = entry.row_major();
    } else if (!covers_block) {
      const std::vector<uint8_t>& fill = default_samples_[static_cast<size_t>(field)];
      for (size_t off = 0; off < bytes; off += fill.size()) std::memcpy(p->samples.data() + off, fill.data(), fill.size());
    }
    Pending& ref = *p;
    pending_.emplace(key, std::move(p));
    return ref;
  }

  OpenBlockFile& File(const std::string& path) {
    auto it = open_files_.find(path);
    if (it != open_files_.end()) return it->second;
    OpenBlockFile f;
    f.entries.assign(static_cast<size_t>(slots_), BlockEntry{});
    const uint64_t table_bytes = static_cast<uint64_t>(BlockTableBytes(6, slots_));
    auto existing = existing_dataset_ ? ReadFile::OpenIfExists(path) : nullptr;
    if (existing) {
      Check(existing->size() >= table_bytes, ErrorCode::kCorrupt, path + ": truncated block table");
      std::vector<uint8_t> raw(table_bytes);
      existing->ReadAt(0, table_bytes, raw.data());
      f.entries = DecodeBlockTable(raw.data(), static_cast<int64_t>(table_bytes), 6, slots_, existing->size(), path);
      f.end = existing->size();
    } else {
      // A new dataset never reuses stale files left by an earlier failed write.
      WriteFile created(path, true);
      if (created.size() != 0) std::filesystem::resize_file(path, 0);
      f.end = table_bytes;
    }
    return open_files_.emplace(path, std::move(f)).first->second;
  }

  ByteBuffer TakeBuffer(size_t bytes) {
    ByteBuffer b;
    {
      std::lock_guard<std::mutex> lock(free_mu_);
      if (!free_buffers_.empty()) {
        b = std::move(free_buffers_.back());
        free_buffers_.pop_back();
      }
    }
    b.Resize(bytes);
    return b;
  }

  void GiveBuffer(ByteBuffer b) {
    std::lock_guard<std::mutex> lock(free_mu_);
    if (free_buffers_.size() < 4 * kBatch) free_buffers_.push_back(std::move(b));
  }

  // Encodes the blocks in parallel, then places each file's payloads in the given order (so the
  // same calls always give the same bytes) and hands them to the write queue.
  void FlushBlocks(const std::vector<Pending*>& blocks) {
    encoded_.resize(kBatch);
    for (size_t start = 0; start < blocks.size(); start += kBatch) {
      const size_t n = std::min(kBatch, blocks.size() - start);
      RunParallel(static_cast<int64_t>(n), [&](int64_t i) {
        Pending& p = *blocks[start + static_cast<size_t>(i)];
        const CodecSpec& spec = codecs_[static_cast<size_t>(p.field)];
        if (spec.codec == Codec::kRaw) return;
        ByteBuffer out = TakeBuffer(0);
        EncodeInto(spec, p.samples.data(), p.samples.size(),
                   SampleShape{header_.fields[static_cast<size_t>(p.field)].dtype, p.grid.count}, out);
        encoded_[static_cast<size_t>(i)] = std::move(out);
      });
      for (size_t i = 0; i < n; ++i) {
        Pending& p = *blocks[start + i];
        const CodecSpec& spec = codecs_[static_cast<size_t>(p.field)];
        ByteBuffer payload = spec.codec == Codec::kRaw ? std::move(p.samples) : std::move(encoded_[i]);
        if (spec.codec != Codec::kRaw) GiveBuffer(std::move(p.samples));
        const std::string path = files_->FilePath(p.block, p.time);
        OpenBlockFile& file = File(path);
        BlockEntry& e = file.entries[static_cast<size_t>(p.field * files_->blocks_per_file() + files_->PositionInFile(p.block))];
        e.offset = file.end;
        e.size = payload.size();
        e.flags = static_cast<uint32_t>(spec.codec) | (p.row_major ? kRowMajorFlag : 0u);
        file.end += payload.size();
        queue_->Push(path, e.offset, std::move(payload));
        pending_.erase(Key(p.field, p.time, p.block));
      }
    }
  }

  std::string idx_path_;
  WriterOptions options_;
  IdxHeader header_;
  bool existing_dataset_ = false;
  bool finished_ = false;
  std::vector<CodecSpec> codecs_;
  std::vector<std::vector<uint8_t>> default_samples_;
  std::unique_ptr<BlockLayout> layout_;
  std::unique_ptr<BlockFiles> files_;
  int64_t slots_ = 0;
  ThreadPool* pool_ = nullptr;
  std::unique_ptr<ThreadPool> owned_pool_;
  std::unordered_map<std::string, std::unique_ptr<Pending>> pending_;
  std::unordered_map<std::string, OpenBlockFile> open_files_;
  std::mutex free_mu_;
  std::vector<ByteBuffer> free_buffers_;
  std::vector<ByteBuffer> encoded_;
  uint64_t next_order_ = 0;
  int64_t written_ = 0;
  int64_t expected_ = 0;
  std::unique_ptr<WriteQueue> queue_;  // last: drains before the buffers it recycles into go away
};

DatasetWriter::DatasetWriter(std::string idx_path, IdxHeader header, WriterOptions options)
    : impl_(std::make_unique<Impl>(std::move(idx_path), std::move(header), std::move(options))) {}
DatasetWriter::~DatasetWriter() = default;
const IdxHeader& DatasetWriter::header() const { return impl_->header(); }
void DatasetWriter::Write(int field, int64_t time, const Box& box, const uint8_t* data) {
  impl_->Write(field, time, box, data);
}
void DatasetWriter::Finish() { impl_->Finish(); }

}  // namespace hzio
