#include "hzio/access/dataset_writer.h"

#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "hzio/access/arco_parts.h"
#include "hzio/access/block_file_copy.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/access/sample_copy.h"
#include "hzio/codec/codec.h"
#include "hzio/format/arco_block_path.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/hz/block_layout.h"
#include "hzio/storage/durable_file.h"
#include "hzio/storage/file.h"
#include "hzio/storage/write_queue.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// What this writer can write: version 6, whole-byte samples, and codecs that hold each field's
// dtype and every level's block shape (png, jpg and zfp hold only some, idx-format.md §5), checked
// before any data. Returns each field's codec.
std::vector<CodecSpec> CheckWritable(const IdxHeader& header, const std::string& idx_path) {
  Check(header.version == 6, ErrorCode::kUnsupported, idx_path + ": only version 6 datasets can be written");
  std::vector<CodecSpec> codecs;
  const BlockLayout levels(header.bitmask, header.bits_per_block);
  for (const Field& f : header.fields) {
    Check(f.dtype.ByteAligned(), ErrorCode::kUnsupported,
          idx_path + ": field '" + f.name + "' dtype " + f.dtype.ToString() + " is not whole bytes");
    const std::string what = idx_path + ": field '" + f.name + "' compression '" + f.compression + "'";
    CodecSpec spec;
    try {
      spec = CodecSpec::Parse(f.compression);
    } catch (const Error& e) {
      throw Error(e.code(), idx_path + ": field '" + f.name + "': " + e.what());
    }
    for (uint64_t b = 0; b < levels.total_blocks(); b = b == 0 ? 1 : 2 * b)
      CheckCodecFits(spec, SampleShape{f.dtype, levels.BlockGrid(b).count}, what);
    codecs.push_back(spec);
  }
  return codecs;
}

}  // namespace

void CreateEmptyDataset(const std::string& idx_path, const IdxHeader& header, const TransactionOptions& options) {
  DatasetTransaction txn(idx_path, options);
  Check(!txn.exists(), ErrorCode::kInvalidArgument, idx_path + " already exists (remove it to create a new dataset)");
  IdxHeader validated = header;
  validated.Validate(IdxStemOf(idx_path));
  CheckWritable(validated, idx_path);  // a header nothing could fill is refused now, not at the first write
  // An empty ARCO dataset is its header alone (§4.12: a missing block file is an absent block);
  // OpenVisus fills it (db.write), hzio refuses to change it (DatasetWriter, below).
  txn.Create(header);
  txn.Commit();
}

namespace {

constexpr size_t kBatch = 64;  // blocks encoded and written together

TransactionOptions OwnTransaction(const WriterOptions& o) {
  TransactionOptions t;
  t.sync = o.sync;
  t.wait = o.wait;
  t.notify = o.notify;
  return t;
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
  // A transaction of its own: the dataset at `idx_path`, new or (allow_existing) existing.
  Impl(std::string idx_path, IdxHeader header, WriterOptions options)
      : options_(std::move(options)),
        owned_txn_(std::make_unique<DatasetTransaction>(std::move(idx_path), OwnTransaction(options_))),
        txn_(owned_txn_.get()),
        idx_path_(txn_->idx_path()) {
    header.Validate(IdxStemOf(idx_path_));
    if (txn_->exists()) {
      Check(options_.allow_existing, ErrorCode::kInvalidArgument,
            idx_path_ + ": a dataset already exists there (refusing to overwrite it)");
      CheckCompatible(txn_->committed(), header, idx_path_);
    } else {
      txn_->Create(std::move(header));
    }
    Init();
  }

  Impl(DatasetTransaction& txn, WriterOptions options)
      : options_(std::move(options)), txn_(&txn), idx_path_(txn.idx_path()) {
    Init();
  }

  // A new ARCO dataset whose blocks go to `output` (no local files, no transaction).
  Impl(std::string name, IdxHeader header, ArcoBlockOutput& output, WriterOptions options)
      : options_(std::move(options)), txn_(nullptr), idx_path_(std::move(name)), output_(&output) {
    Check(header.arco > 0, ErrorCode::kInternal, idx_path_ + ": a block output takes ARCO datasets only");
    header_ = std::move(header);
    Init();
  }

  void Init() {
    if (txn_ != nullptr) header_ = txn_->target();
    codecs_ = CheckWritable(header_, idx_path_);
    for (const Field& f : header_.fields) default_samples_.push_back(f.DefaultSample());
    expected_ = header_.box.Size().Product();
    layout_ = std::make_unique<BlockLayout>(header_.bitmask, header_.bits_per_block);
    if (header_.arco > 0 && output_ == nullptr) {
      // ARCO block files sit at places fixed by the .idx path (idx-format.md §4.12): a new dataset's
      // go straight there, the .idx last (absent until then; DatasetTransaction::Create removed what
      // a killed writer left). Changing a committed dataset's blocks in place would break contract 3.
      Check(!txn_->exists(), ErrorCode::kUnsupported,
            idx_path_ + ": an existing ARCO dataset cannot be changed yet: hzio writes ARCO datasets whole, as new "
                        "ones (write a new dataset, or convert to a classic one)");
      arco_root_ = ArcoRoot(idx_path_);
    }
    files_ = std::make_unique<BlockFiles>(header_, IdxDirectory(idx_path_));  // slots; paths come from txn_
    slots_ = files_->blocks_per_file() * static_cast<int64_t>(header_.fields.size());
    queue_ = std::make_unique<WriteQueue>(2 * kBatch, [this](ByteBuffer b) { GiveBuffer(std::move(b)); });
    pool_ = options_.threads == 0 ? &ThreadPool::Shared() : nullptr;
    if (options_.threads > 1) owned_pool_ = std::make_unique<ThreadPool>(options_.threads - 1), pool_ = owned_pool_.get();
  }

  // An unfinished ARCO write removes the block files it wrote (its dataset never existed).
  ~Impl() {
    if (arco_root_.empty() || finished_) return;
    try {
      queue_->Drain();
    } catch (const std::exception&) {  // the write failed already; its files go all the same
    }
    try {
      for (const std::string& part : arco_parts_) RemoveTree(part);
    } catch (const std::exception& e) {
      if (options_.notify) options_.notify(std::string("files of the abandoned ARCO write were not all removed: ") + e.what());
    }
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
    if (txn_ != nullptr) txn_->MarkWritten(field, time);
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
    // Each file gets the blocks it keeps from the version it replaces, then its table.
    for (auto& entry : open_files_) {
      auto& file = entry.second;  // a plain reference: lambdas may not capture structured bindings (clang 14)
      ScopedFd out(::open(file.path.c_str(), O_WRONLY | O_CLOEXEC));
      if (!out.valid()) throw OsError(file.path, "cannot open for writing");
      if (file.previous.valid()) {
        CarryPayloads(file.previous.get(), file.previous_path, file.previous_entries, out.get(), file.path, file.end,
                      file.entries, [&](size_t slot) { return !file.entries[slot].Present(); });
      }
      const std::vector<uint8_t> table = EncodeBlockTable(file.entries);
      WriteFile(file.path, false).WriteAt(0, table.data(), table.size());
    }
    if (!arco_root_.empty() && txn_->options().sync) {  // the transaction syncs the files it staged; these are ours
      std::set<std::string> dirs;
      for (const std::string& path : arco_files_) {
        WriteFile(path, false).Sync();
        for (std::string d = ParentDirectory(path); d.size() > arco_root_.size(); d = ParentDirectory(d)) dirs.insert(d);
      }
      for (const std::string& d : dirs) SyncDirectory(d);
      SyncDirectory(arco_root_);
    }
    if (output_ != nullptr) output_->Finish();
    finished_ = true;
    if (owned_txn_) owned_txn_->Commit();
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
    uint64_t first_block = 0;
    int64_t time = 0;
    std::string path;  // where this write puts the file (moves if the write moves to a new generation)
    std::vector<BlockEntry> entries;
    uint64_t end = 0;  // where the next payload goes
    // The committed file this one replaces: its blocks are carried over unless rewritten.
    ScopedFd previous;
    std::string previous_path;
    std::vector<BlockEntry> previous_entries;
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

  void FillDefault(int field, uint8_t* out, size_t bytes) const {
    const std::vector<uint8_t>& fill = default_samples_[static_cast<size_t>(field)];
    FillRepeated(out, bytes, fill.data(), fill.size());
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
    if (header_.arco > 0) {
      p->samples = TakeBuffer(bytes);
      Check(output_ == nullptr || !arco_written_.count(key), ErrorCode::kUnsupported,
            idx_path_ + ": block " + std::to_string(block) + " of field '" + f.name +
                "' was written again after it went out (an output takes every block once, complete)");
      if (!covers_block && arco_written_.count(key)) {  // flushed earlier by this write: merge with it
        queue_->Drain();
        const std::string path = ArcoBlockPath(arco_root_, time, f.name, block);
        const std::string payload = ReadWholeFile(path);
        Decode(CodecSpec::ForBlock(codecs_[static_cast<size_t>(field)].codec, f.compression),
               reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), SampleShape{f.dtype, p->grid.count},
               p->samples.data(), bytes, path + ": block " + std::to_string(block));
      } else if (!covers_block) {
        FillDefault(field, p->samples.data(), bytes);
      }
      Pending& ref = *p;
      pending_.emplace(key, std::move(p));
      return ref;
    }
    // A block already written (flushed earlier by this write, or in the file this one replaces)
    // is read, merged, rewritten.
    OpenBlockFile& file = File(files_->FirstBlockInFile(block), time);
    const size_t slot = static_cast<size_t>(field * files_->blocks_per_file() + files_->PositionInFile(block));
    p->samples = TakeBuffer(bytes);
    const bool flushed = file.entries[slot].Present();
    const bool kept = !flushed && file.previous.valid() && slot < file.previous_entries.size() &&
                      file.previous_entries[slot].Present();
    if ((flushed || kept) && !covers_block) {  // a block this write fills whole needs no old samples
      const BlockEntry entry = flushed ? file.entries[slot] : file.previous_entries[slot];
      const std::string& path = flushed ? file.path : file.previous_path;
      std::vector<uint8_t> payload(static_cast<size_t>(entry.size));
      if (flushed) {
        queue_->Drain();  // it may still be on its way to disk
        WriteFile(path, false).ReadAt(entry.offset, entry.size, payload.data());
      } else {
        ReadExactlyAt(file.previous.get(), payload.data(), entry.size, entry.offset, path);
      }
      Decode(CodecSpec::ForBlock(CodecFromCode(entry.codec_code(), path), f.compression), payload.data(),
             payload.size(), SampleShape{f.dtype, p->grid.count}, p->samples.data(), bytes,
             path + ": block " + std::to_string(block));
      p->row_major = entry.row_major();
    } else if (!covers_block) {
      FillDefault(field, p->samples.data(), bytes);
    }
    Pending& ref = *p;
    pending_.emplace(key, std::move(p));
    return ref;
  }

  static std::string FileKey(uint64_t first_block, int64_t time) {
    return std::to_string(first_block) + "@" + std::to_string(time);
  }

  // The file of this write holding `first_block`.. at `time`, staged in the transaction on first use.
  OpenBlockFile& File(uint64_t first_block, int64_t time) {
    const std::string key = FileKey(first_block, time);
    auto it = open_files_.find(key);
    if (it != open_files_.end()) return it->second;
    // Staging may move the files written so far to a new generation: nothing may be in flight.
    const DatasetTransaction::FileSlot slot = txn_->StageFile(first_block, time, [this] { queue_->Drain(); });
    for (auto& [k, f] : open_files_) f.path = txn_->TargetPath(f.first_block, f.time);
    OpenBlockFile f;
    f.first_block = first_block;
    f.time = time;
    f.path = slot.path;
    f.entries.assign(static_cast<size_t>(slots_), BlockEntry{});
    f.end = static_cast<uint64_t>(BlockTableBytes(6, slots_));
    {
      WriteFile created(f.path, true);  // fresh: never what a killed writer left there
      if (created.size() != 0) std::filesystem::resize_file(f.path, 0);
    }
    if (!slot.previous.empty()) {
      f.previous = OpenForReadingIfExists(slot.previous);
      Check(f.previous.valid(), ErrorCode::kIo, slot.previous + ": vanished during the write");
      f.previous_path = slot.previous;
      f.previous_entries = ReadBlockFileTable(f.previous.get(), slot.previous, slot.previous_slots).entries;
    }
    return open_files_.emplace(key, std::move(f)).first->second;
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
        if (output_ != nullptr) {  // one object per block (§4.12), stored by the output
          output_->Put(p.time, header_.fields[static_cast<size_t>(p.field)].name, p.block, std::move(payload));
          arco_written_.insert(Key(p.field, p.time, p.block));
          pending_.erase(Key(p.field, p.time, p.block));
          continue;
        }
        if (!arco_root_.empty()) {  // one file per block, no table (§4.12)
          const std::string& name = header_.fields[static_cast<size_t>(p.field)].name;
          const std::string path = ArcoBlockPath(arco_root_, p.time, name, p.block);
          arco_parts_.insert(ArcoPartDirectory(arco_root_, p.time, name));
          {
            WriteFile created(path, true);
            if (created.size() != 0) std::filesystem::resize_file(path, 0);
          }
          arco_written_.insert(Key(p.field, p.time, p.block));
          arco_files_.push_back(path);
          queue_->Push(path, 0, std::move(payload));
          pending_.erase(Key(p.field, p.time, p.block));
          continue;
        }
        OpenBlockFile& file = File(files_->FirstBlockInFile(p.block), p.time);
        const std::string& path = file.path;
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

  WriterOptions options_;
  std::unique_ptr<DatasetTransaction> owned_txn_;  // first: destroyed (aborting) after the queue
  DatasetTransaction* txn_;
  std::string idx_path_;
  IdxHeader header_;
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
  // ARCO (header_.arco > 0): the dataset's root, the part directories and block files written.
  std::string arco_root_;
  std::set<std::string> arco_parts_;
  std::unordered_set<std::string> arco_written_;
  std::vector<std::string> arco_files_;
  ArcoBlockOutput* output_ = nullptr;  // ARCO blocks go there instead (no transaction, no files)
  int64_t written_ = 0;
  int64_t expected_ = 0;
  std::unique_ptr<WriteQueue> queue_;  // last: drains before the buffers it recycles into go away
};

DatasetWriter::DatasetWriter(std::string idx_path, IdxHeader header, WriterOptions options)
    : impl_(std::make_unique<Impl>(std::move(idx_path), std::move(header), std::move(options))) {}
DatasetWriter::DatasetWriter(DatasetTransaction& txn, WriterOptions options)
    : impl_(std::make_unique<Impl>(txn, std::move(options))) {}
DatasetWriter::DatasetWriter(const std::string& name, IdxHeader header, ArcoBlockOutput& output, WriterOptions options)
    : impl_(std::make_unique<Impl>(name, std::move(header), output, std::move(options))) {}
DatasetWriter::~DatasetWriter() = default;
const IdxHeader& DatasetWriter::header() const { return impl_->header(); }
void DatasetWriter::Write(int field, int64_t time, const Box& box, const uint8_t* data) {
  impl_->Write(field, time, box, data);
}
void DatasetWriter::Finish() { impl_->Finish(); }

}  // namespace hzio
