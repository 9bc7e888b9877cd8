#include "hzio/mpi/file_portions.h"

#include <algorithm>
#include <utility>

#include "hzio/codec/codec.h"
#include "hzio/format/block_table.h"
#include "hzio/storage/block_file_write.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/collective.h"

namespace hzio::mpi {

namespace {

// One aggregator's part of one file: its slot range, entries (offsets relative to the portion's
// start until placed) and payloads in file order.
struct Portion {
  int64_t file = 0;
  Span slots;                          // positions [begin, end) inside the file
  bool whole = false;                  // the aggregator owns every slot of the file
  bool file_has_data = false;          // some block of the whole file holds data
  std::vector<BlockEntry> entries;     // bpf * nfields, only this portion's set
  std::vector<StagedSpan> payloads;  // each final after its step of the release schedule (its stage)
  std::vector<std::vector<uint8_t>> encoded;
  int64_t bytes = 0;
};

bool FileHasData(const BlockLayout& layout, const FileAggregation& plan, int64_t file, const Box& box) {
  const Span blocks = plan.FileBlocks(file);
  for (int64_t b = blocks.begin; b < blocks.end; ++b)
    if (BlockTouchesBox(layout, static_cast<uint64_t>(b), box)) return true;
  return false;
}

std::vector<Portion> EncodePortions(const IdxHeader& header, const BlockLayout& layout, const FileAggregation& plan,
                                    const ReleaseSchedule& schedule, int64_t agg, const uint8_t* buffer) {
  const int64_t bpf = plan.blocks_per_file();
  const int nfields = static_cast<int>(header.fields.size());
  std::vector<CodecSpec> codecs;
  for (const Field& f : header.fields) codecs.push_back(CodecSpec::Parse(f.compression));
  const Span mine = plan.Blocks(agg), files = plan.Files(agg);
  std::vector<Portion> portions;
  for (int64_t file = files.begin; file < files.end; ++file) {
    const Span fb = plan.FileBlocks(file);
    Portion p;
    p.file = file;
    p.slots = Span{std::max(fb.begin, mine.begin) - fb.begin, std::min(fb.end, mine.end) - fb.begin};
    p.whole = p.slots.begin == 0 && p.slots.end == fb.size();
    p.file_has_data = FileHasData(layout, plan, file, header.box);
    p.entries.resize(static_cast<size_t>(bpf * nfields));
    p.encoded.reserve(static_cast<size_t>(p.slots.size() * nfields));
    for (int64_t pos = p.slots.begin; pos < p.slots.end; ++pos) {
      const int64_t b = fb.begin + pos;
      if (!BlockTouchesBox(layout, static_cast<uint64_t>(b), header.box)) continue;
      for (int f = 0; f < nfields; ++f) {
        const int64_t bb = plan.block_bytes(f);
        const uint8_t* raw = buffer + plan.FieldBase(agg, f) + (b - mine.begin) * bb;
        ByteSpan payload{raw, bb};
        const CodecSpec& codec = codecs[static_cast<size_t>(f)];
        if (codec.codec != Codec::kRaw) {
          p.encoded.push_back(Encode(codec, raw, static_cast<size_t>(bb)));
          payload = ByteSpan{p.encoded.back().data(), static_cast<int64_t>(p.encoded.back().size())};
        }
        BlockEntry& e = p.entries[static_cast<size_t>(f * bpf + pos)];
        e.offset = static_cast<uint64_t>(p.bytes);
        e.size = static_cast<uint64_t>(payload.size);
        e.flags = static_cast<uint32_t>(codec.codec);  // bit 4 clear: hz-ordered samples
        p.bytes += payload.size;
        p.payloads.push_back(StagedSpan{payload, schedule.StageOf(f, agg, b)});
      }
    }
    portions.push_back(std::move(p));
  }
  return portions;
}

// Where the payloads of each slot of a raw dataset's file start (-1: the block holds no sample of
// the dataset box, so it has none, §4.9), and the file's size.
struct RawFileGeometry {
  Span blocks, units;
  std::vector<int64_t> base;
  int64_t end = 0;
};

RawFileGeometry RawGeometry(const BlockLayout& layout, const FileAggregation& plan, int64_t file, const Box& box,
                            int64_t table_bytes, int64_t slot_bytes) {
  RawFileGeometry g;
  g.blocks = plan.FileBlocks(file);
  g.units = Span{g.blocks.begin * plan.units_per_block(), g.blocks.end * plan.units_per_block()};
  g.base.assign(static_cast<size_t>(g.blocks.size()), -1);
  g.end = table_bytes;
  for (int64_t pos = 0; pos < g.blocks.size(); ++pos)
    if (BlockTouchesBox(layout, static_cast<uint64_t>(g.blocks.begin + pos), box)) {
      g.base[static_cast<size_t>(pos)] = g.end;
      g.end += slot_bytes;
    }
  return g;
}

// One aggregator's part of a raw file: the table entries of the blocks whose first unit it owns
// (plus the table header if it owns the file's first unit, and the zero entries past the last
// block if it owns the last), and its units' bytes, each at its file offset. `table` backs the
// table pieces.
struct RawPart {
  std::vector<uint8_t> table;
  std::vector<PlacedSpan> pieces;
  bool last = false;
  int64_t bytes = 0;
};

RawPart RawFilePart(const FileAggregation& plan, const RawFileGeometry& g, int nfields,
                    const std::vector<int64_t>& field_offset, int64_t agg, const uint8_t* buffer) {
  const int64_t bpf = plan.blocks_per_file(), upb = plan.units_per_block();
  const Span mine = plan.Units(agg);
  const Span own{std::max(mine.begin, g.units.begin), std::min(mine.end, g.units.end)};
  const Span slots{(own.begin - g.units.begin + upb - 1) / upb, (own.end - g.units.begin + upb - 1) / upb};
  RawPart part;
  part.last = own.end == g.units.end;
  std::vector<BlockEntry> entries(static_cast<size_t>(bpf * nfields));
  for (int64_t pos = slots.begin; pos < slots.end; ++pos) {
    if (g.base[static_cast<size_t>(pos)] < 0) continue;  // absent: zero entries
    for (int f = 0; f < nfields; ++f) {
      BlockEntry& e = entries[static_cast<size_t>(f * bpf + pos)];
      e.offset = static_cast<uint64_t>(g.base[static_cast<size_t>(pos)] + field_offset[static_cast<size_t>(f)]);
      e.size = static_cast<uint64_t>(plan.block_bytes(f));
      e.flags = static_cast<uint32_t>(Codec::kRaw);  // bit 4 clear: hz-ordered samples
    }
  }
  part.table = EncodeBlockTable(entries);
  if (slots.begin == 0 && own.begin == g.units.begin) part.pieces.push_back(PlacedSpan{0, ByteSpan{part.table.data(), kBlockTableHeaderBytes}});
  const int64_t entries_end = part.last ? bpf : slots.end;
  for (int f = 0; f < nfields && entries_end > slots.begin; ++f) {
    const int64_t at = BlockTableEntryOffset(f * bpf + slots.begin);
    part.pieces.push_back(PlacedSpan{at, ByteSpan{part.table.data() + at, kBlockTableEntryBytes * (entries_end - slots.begin)}});
  }
  for (int64_t u = own.begin; u < own.end;) {
    const int64_t b = u / upb, end = std::min(own.end, (b + 1) * upb);
    const int64_t slot_base = g.base[static_cast<size_t>(b - g.blocks.begin)];
    if (slot_base >= 0)
      for (int f = 0; f < nfields; ++f) {
        const int64_t ub = plan.unit_bytes(f);
        part.pieces.push_back(PlacedSpan{slot_base + field_offset[static_cast<size_t>(f)] + (u - b * upb) * ub,
                                         ByteSpan{buffer + plan.FieldBase(agg, f) + (u - mine.begin) * ub, (end - u) * ub}});
      }
    u = end;
  }
  for (const PlacedSpan& p : part.pieces) part.bytes += p.bytes.size;
  return part;
}

// A raw dataset whose files are shared by several aggregators: the place of every byte follows
// from which blocks hold samples of the dataset box, so parts are written without asking anybody.
// One rank per node writes each file: the first of its sharers whose buffer it can read (any on
// this node with a node-shared window, else only its own) writes all of theirs, as ROMIO's
// collective buffering keeps one aggregator per node; concurrent writers of one file serialise on
// its lock in a local file system anyway. Adds the writes to `out`, and the bytes of this
// aggregator's own parts, whoever writes them.
void PlaceRawSharedFiles(const IdxHeader& header, const BlockLayout& layout, const BlockFiles& files,
                         const FileAggregation& plan, int64_t agg, const std::vector<const uint8_t*>& buffers,
                         int64_t time, TimestepWrites& out) {
  const int nfields = static_cast<int>(header.fields.size());
  const int64_t table_bytes = FileTableBytes(header, plan);
  std::vector<int64_t> field_offset;  // of field f's payload inside a block's slot
  int64_t slot_bytes = 0;
  for (int f = 0; f < nfields; ++f) {
    field_offset.push_back(slot_bytes);
    slot_bytes += plan.block_bytes(f);
  }
  const Span my_files = plan.Files(agg);
  for (int64_t file = my_files.begin; file < my_files.end; ++file) {
    if (!FileHasData(layout, plan, file, header.box)) continue;  // no file (§4.9)
    const RawFileGeometry g = RawGeometry(layout, plan, file, header.box, table_bytes, slot_bytes);
    const Span sharers{plan.AggregatorOfUnit(static_cast<uint64_t>(g.units.begin)),
                       plan.AggregatorOfUnit(static_cast<uint64_t>(g.units.end - 1)) + 1};
    int64_t writer = agg;
    for (int64_t a = sharers.begin; a < agg; ++a)
      if (buffers[static_cast<size_t>(a)]) {
        writer = a;
        break;
      }
    std::vector<RawPart> parts;
    parts.push_back(RawFilePart(plan, g, nfields, field_offset, agg, buffers[static_cast<size_t>(agg)]));
    out.AddBytes(parts.back().bytes);
    if (writer != agg) continue;  // a sharer before this one on its node writes it
    for (int64_t a = agg + 1; a < sharers.end; ++a)
      if (const uint8_t* b = buffers[static_cast<size_t>(a)]) parts.push_back(RawFilePart(plan, g, nfields, field_offset, a, b));
    std::vector<PlacedSpan> pieces;
    bool last = false;
    for (RawPart& part : parts) {
      pieces.insert(pieces.end(), part.pieces.begin(), part.pieces.end());
      last = last || part.last;
      out.Keep(std::move(part.table));  // the table pieces point into it (moving keeps the bytes in place)
    }
    std::sort(pieces.begin(), pieces.end(), [](const PlacedSpan& a, const PlacedSpan& b) { return a.offset < b.offset; });
    const std::string path = files.FilePath(g.blocks.begin, time);
    // Every byte of the file from here (one node, or one aggregator per file): a whole-file write,
    // direct when durable (storage/block_file_write.h).
    std::vector<StagedSpan> whole;
    int64_t end = 0;
    for (const PlacedSpan& s : pieces) {
      if (s.offset != end) break;
      whole.push_back(StagedSpan{s.bytes, -1});
      end += s.bytes.size;
    }
    if (last && end == g.end && whole.size() == pieces.size()) out.AddWhole(path, std::move(whole));
    else out.AddPlaced(path, std::move(pieces), last ? g.end : -1);
  }
}

}  // namespace

// A started file left unfinished (an agreed error) waits for its writes in flight, which may read
// the tables in owned_: the files go first.
TimestepWrites::~TimestepWrites() { writes_.clear(); }

void TimestepWrites::AddWhole(std::string path, std::vector<StagedSpan> pieces) {
  FileWrite w;
  w.path = std::move(path);
  w.whole = true;
  w.whole_pieces = std::move(pieces);
  writes_.push_back(std::move(w));
}

void TimestepWrites::AddPlaced(std::string path, std::vector<PlacedSpan> pieces, int64_t final_size) {
  FileWrite w;
  w.path = std::move(path);
  w.placed = std::move(pieces);
  w.final_size = final_size;
  writes_.push_back(std::move(w));
}

const uint8_t* TimestepWrites::Keep(std::vector<uint8_t> bytes) {
  owned_.push_back(std::move(bytes));
  return owned_.back().data();
}

void TimestepWrites::Start() {
  if (error_) return;
  try {
    for (FileWrite& w : writes_)
      if (w.whole) w.started = std::make_unique<StagedFileWrite>(w.path, std::move(w.whole_pieces), sync_, direct_, sources_);
  } catch (...) {
    error_ = std::current_exception();
  }
}

void TimestepWrites::Release(int step) {
  if (error_) return;
  try {
    for (FileWrite& w : writes_)
      if (w.started) w.started->Release(step);
  } catch (...) {
    error_ = std::current_exception();
  }
}

void TimestepWrites::Run() {
  if (error_) std::rethrow_exception(error_);
  for (FileWrite& w : writes_) {
    if (!w.whole) {
      WriteIntoFile(w.path, w.placed, w.final_size, sync_, sources_);
      continue;
    }
    if (!w.started) w.started = std::make_unique<StagedFileWrite>(w.path, std::move(w.whole_pieces), sync_, direct_, sources_);
    w.started->Finish();
    zero_copy_bytes_ += w.started->bytes_from_pieces();
    w.started.reset();
  }
}

int64_t FileTableBytes(const IdxHeader& header, const FileAggregation& plan) {
  return BlockTableBytes(6, plan.blocks_per_file() * static_cast<int64_t>(header.fields.size()));
}

TimestepWrites PrepareTimestepFiles(MPI_Comm comm, const IdxHeader& header, const BlockLayout& layout,
                                    const BlockFiles& files, const FileAggregation& plan,
                                    const ReleaseSchedule& schedule, int64_t agg,
                                    const std::vector<const uint8_t*>& buffers, int64_t time, bool sync,
                                    DirectIo direct, WriteSourceMap* sources) {
  TimestepWrites out;
  out.SetMode(sync, direct, sources);
  const uint8_t* const buffer = agg >= 0 ? buffers[static_cast<size_t>(agg)] : nullptr;
  const int64_t bpf = plan.blocks_per_file(), nfields = static_cast<int64_t>(header.fields.size());
  const int64_t table_bytes = FileTableBytes(header, plan);
  // Local failures are kept in the result and agreed by the caller after the writes: a rank that
  // failed writes nothing, and the others' files are never referenced by a .idx.
  std::exception_ptr error;
  if (plan.raw() && !plan.whole_files()) {
    try {
      if (agg >= 0) PlaceRawSharedFiles(header, layout, files, plan, agg, buffers, time, out);
    } catch (...) {
      out.SetError(std::current_exception());
    }
    return out;
  }
  std::vector<Portion> portions;
  try {
    if (agg >= 0) portions = EncodePortions(header, layout, plan, schedule, agg, buffer);
  } catch (...) {
    error = std::current_exception();
  }

  // Where this aggregator's part of its first file starts: after the parts of the aggregators
  // before it that end in the same file.
  int64_t first_offset = table_bytes;
  if (!plan.whole_files()) {
    const int ranks = CommSize(comm);
    int64_t mine[4] = {-1, 0, -1, 0};  // first file, its bytes, last file, its bytes
    if (!portions.empty()) {
      mine[0] = portions.front().file;
      mine[1] = portions.front().bytes;
      mine[2] = portions.back().file;
      mine[3] = portions.back().bytes;
    }
    std::vector<int64_t> all(static_cast<size_t>(4 * ranks));
    MpiCheck(MPI_Allgather(mine, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm), "MPI_Allgather(portions)");
    for (int64_t j = agg - 1; agg >= 0 && j >= 0; --j) {
      const size_t r = static_cast<size_t>(plan.Rank(j)) * 4;
      if (all[r + 2] != mine[0]) break;
      first_offset += all[r + 3];
      if (all[r] != all[r + 2]) break;  // that aggregator started in an earlier file
    }
  }

  try {
    for (size_t i = 0; i < portions.size() && !error; ++i) {
      Portion& p = portions[i];
      for (std::vector<uint8_t>& e : p.encoded) out.Keep(std::move(e));  // the payloads point into them
      if (!p.file_has_data) continue;  // no block of the file touches the box: no file (§4.9)
      const int64_t start = i == 0 ? first_offset : table_bytes;
      for (BlockEntry& e : p.entries)
        if (e.size > 0) e.offset += static_cast<uint64_t>(start);
      const uint8_t* const table = out.Keep(EncodeBlockTable(p.entries));
      const std::string path = files.FilePath(plan.FileBlocks(p.file).begin, time);
      if (p.whole) {
        std::vector<StagedSpan> pieces{StagedSpan{ByteSpan{table, table_bytes}, -1}};
        pieces.insert(pieces.end(), p.payloads.begin(), p.payloads.end());
        out.AddWhole(path, std::move(pieces));
        out.AddBytes(table_bytes + p.bytes);
        continue;
      }
      // A shared file: this portion's table entries (one run of slots per field); the owner of
      // slot 0 also writes the table header, the owner of the last slot the (zero) entries past
      // the last block and the size, so together the sharers write every byte in any order.
      const int64_t file_slots = plan.FileBlocks(p.file).size();
      std::vector<PlacedSpan> pieces;
      if (p.slots.begin == 0) pieces.push_back(PlacedSpan{0, ByteSpan{table, kBlockTableHeaderBytes}});
      for (int64_t f = 0; f < nfields; ++f) {
        const int64_t at = BlockTableEntryOffset(f * bpf + p.slots.begin);
        const int64_t end = p.slots.end == file_slots ? bpf : p.slots.end;  // zero entries past the last block
        pieces.push_back(PlacedSpan{at, ByteSpan{table + at, kBlockTableEntryBytes * (end - p.slots.begin)}});
      }
      int64_t offset = start;
      for (const StagedSpan& s : p.payloads) {
        pieces.push_back(PlacedSpan{offset, s.bytes});
        offset += s.bytes.size;
      }
      std::sort(pieces.begin(), pieces.end(), [](const PlacedSpan& a, const PlacedSpan& b) { return a.offset < b.offset; });
      out.AddPlaced(path, std::move(pieces), p.slots.end == file_slots ? offset : -1);
      out.AddBytes(p.bytes + (p.slots.begin == 0 ? table_bytes : 0));
    }
  } catch (...) {
    error = std::current_exception();
  }
  if (error) out.SetError(error);
  return out;
}

}  // namespace hzio::mpi
