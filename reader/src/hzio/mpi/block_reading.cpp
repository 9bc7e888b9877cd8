#include "hzio/mpi/block_reading.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

#include "hzio/codec/codec.h"
#include "hzio/hz/sample_kernels.h"
#include "hzio/hz/unit_scatter.h"
#include "hzio/mpi/piece_read_ahead.h"
#include "hzio/util/box_copy.h"
#include "hzio/util/error.h"
#include "hzio/util/stream_copy.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {

bool BlockTouchesBox(const BlockLayout& layout, uint64_t block, const Box& box) {
  const Grid g = layout.BlockGrid(block);
  AxisCopy plan[kMaxDims];
  return PlanGridCopy(g, g, box, plan);
}

std::vector<uint64_t> BoxBlocks(const IdxHeader& header, const BlockLayout& layout, const Box& box, int level) {
  std::vector<uint64_t> blocks = layout.BlocksInRegion(box, LevelRange{0, level});
  std::erase_if(blocks, [&](uint64_t b) { return !BlockTouchesBox(layout, b, header.box); });
  return blocks;
}

namespace {

// count samples of sb bytes, dst_pitch / src_pitch bytes apart: fixed-size word copies for the
// usual sample sizes (a memcpy call of a variable size per sample cost more than the copy).
template <int64_t kWords>
void CopyStridedWords(uint8_t* dst, int64_t dst_pitch, const uint8_t* src, int64_t src_pitch, int64_t count) {
  for (int64_t m = 0; m < count; ++m) std::memcpy(dst + m * dst_pitch, src + m * src_pitch, 8 * kWords);
}

void CopyStrided(uint8_t* dst, int64_t dst_pitch, const uint8_t* src, int64_t src_pitch, int64_t count, int64_t sb) {
  switch (sb) {
    case 1: for (int64_t m = 0; m < count; ++m) dst[m * dst_pitch] = src[m * src_pitch]; return;
    case 2: for (int64_t m = 0; m < count; ++m) std::memcpy(dst + m * dst_pitch, src + m * src_pitch, 2); return;
    case 4: for (int64_t m = 0; m < count; ++m) std::memcpy(dst + m * dst_pitch, src + m * src_pitch, 4); return;
    case 8: return CopyStridedWords<1>(dst, dst_pitch, src, src_pitch, count);
    case 16: return CopyStridedWords<2>(dst, dst_pitch, src, src_pitch, count);
    case 24: return CopyStridedWords<3>(dst, dst_pitch, src, src_pitch, count);
    default:
      for (int64_t m = 0; m < count; ++m) std::memcpy(dst + m * dst_pitch, src + m * src_pitch, static_cast<size_t>(sb));
  }
}

}  // namespace

void CopyPlanned(const uint8_t* src, const Point& src_count, uint8_t* dst, const Point& dst_count,
                 const AxisCopy (&plan)[kMaxDims], int dims, int64_t sb, bool stream) {
  int64_t src_stride[kMaxDims], dst_stride[kMaxDims];
  int64_t s = 1, t = 1;
  for (int d = 0; d < dims; ++d) {
    src_stride[d] = s;
    dst_stride[d] = t;
    s *= src_count[d];
    t *= dst_count[d];
  }
  int64_t k[kMaxDims] = {0};
  const AxisCopy& x = plan[0];
  for (;;) {
    int64_t so = 0, dof = 0;
    for (int d = 1; d < dims; ++d) {
      so += (plan[d].src_first + k[d] * plan[d].src_step) * src_stride[d];
      dof += (plan[d].dst_first + k[d] * plan[d].dst_step) * dst_stride[d];
    }
    const uint8_t* sp = src + (so + x.src_first) * sb;
    uint8_t* dp = dst + (dof + x.dst_first) * sb;
    if (x.src_step == 1 && x.dst_step == 1) {
      if (stream) StreamCopy(dp, sp, static_cast<size_t>(x.count * sb));
      else std::memcpy(dp, sp, static_cast<size_t>(x.count * sb));
    } else {
      CopyStrided(dp, x.dst_step * sb, sp, x.src_step * sb, x.count, sb);
    }
    int d = 1;
    for (; d < dims; ++d) {
      if (++k[d] < plan[d].count) break;
      k[d] = 0;
    }
    if (d >= dims) break;
  }
}

namespace {

// out[r - rows.begin] = in[table[r]] for the row-major indices r of `rows`.
void Permute(uint8_t* out, const uint8_t* in, const std::vector<uint32_t>& table, int64_t sb, Span rows) {
  Gather(out, in, table.data() + rows.begin, rows.size(), sb, GatherKernel(sb));
}

// Permutes only the samples of levels 0..level of hz-ordered block 0 (its first 2^level hz
// indices) into their row-major places within `rows`: they form the block grid's sub-lattice of
// the level's stride, so the work is proportional to the samples the query needs.
void PermuteCoarse(uint8_t* out, const uint8_t* in, const std::vector<uint32_t>& table, int64_t sb,
                   const BlockLayout& layout, int level, Span rows) {
  const Grid g = layout.BlockGrid(0);
  const Point stride = layout.bitmask().CumulativeStride(std::max(level, 0));
  const int n = g.dims();
  Point step(n), count(n), row(n);
  int64_t r = 1;
  for (int d = 0; d < n; ++d) {
    step[d] = stride[d] / g.stride[d];
    count[d] = (g.count[d] + step[d] - 1) / step[d];
    row[d] = r;
    r *= g.count[d];
  }
  Point k(n);
  for (;;) {
    int64_t base = 0;  // row-major index of the sub-lattice row starting at x = 0
    for (int d = 1; d < n; ++d) base += k[d] * step[d] * row[d];
    if (base + g.count[0] > rows.begin && base < rows.end) {  // this grid row meets the wanted rows
      for (int64_t x = 0; x < count[0]; ++x) {
        const int64_t at = base + x * step[0];
        if (at < rows.begin || at >= rows.end) continue;
        std::memcpy(out + (at - rows.begin) * sb, in + static_cast<int64_t>(table[static_cast<size_t>(at)]) * sb,
                    static_cast<size_t>(sb));
      }
    }
    int d = 1;
    for (; d < n; ++d) {
      if (++k[d] < count[d]) break;
      k[d] = 0;
    }
    if (d >= n) break;
  }
}

// Copies rows [want.begin, want.end) of unit u's grid (row-major, slab-aligned) from `decoded`,
// file block fb decoded row-major over its own grid, into `dst`.
void CopyUnitRows(const BlockLayout& file_layout, uint64_t fb, const BlockLayout& units, uint64_t u, Span want,
                  const uint8_t* decoded, uint8_t* dst, int64_t sb) {
  const Grid src = file_layout.BlockGrid(fb);
  Grid part = units.BlockGrid(u);
  const int slow = part.dims() - 1;
  const int64_t slab = part.NumSamples() / part.count[slow];
  Check(want.begin % slab == 0 && (want.end % slab == 0 || want.end == part.NumSamples()), ErrorCode::kInternal,
        "unit rows are not whole slabs");
  part.origin[slow] += want.begin / slab * part.stride[slow];
  part.count[slow] = (want.end - want.begin + slab - 1) / slab;
  AxisCopy plan[kMaxDims];
  if (PlanGridCopy(src, part, part.LogicBox(), plan)) CopyPlanned(decoded, src.count, dst, part.count, plan, part.dims(), sb);
}

// Scratch memory reused across calls, so repeated reads do not pay page faults again; buffers
// above kKeepScratch are given back after each call.
constexpr size_t kKeepScratch = size_t{64} << 20;
thread_local std::vector<uint8_t> scratch_buffers[3];  // a decoded file block, a piece, a unit handed to a sink
constexpr int kReadsAhead = 2;  // direct reads queued ahead of the placing (piece_read_ahead.h)
thread_local LargeAllocation uncached_staging[kReadsAhead + 1];  // ReadBlocks(uncached): a piece placed, those read ahead

std::vector<uint8_t>& Scratch(int which, size_t bytes) {
  std::vector<uint8_t>& b = scratch_buffers[which];
  if (b.size() < bytes) b.resize(bytes);
  return b;
}

void TrimScratch() {
  for (std::vector<uint8_t>& b : scratch_buffers)
    if (b.size() > kKeepScratch) std::vector<uint8_t>().swap(b);
  for (LargeAllocation& b : uncached_staging)
    if (b.size() > kKeepScratch) b = LargeAllocation();
}

// What a read of `units` of one field takes from each block file (see ReadBlocks).
struct ReadGeometry {
  int shift = 0;                 // units per file block: 2^shift
  int64_t unit_samples = 0, sb = 0, file_block_bytes = 0;
  int64_t unit0_needed = 0;      // samples of unit 0 a query of levels 0..max_level needs
};

ReadGeometry GeometryOf(const ClassicBlockSource& source, const BlockLayout& units, int field, int max_level) {
  const IdxHeader& header = source.header();
  const DType& dtype = header.fields[static_cast<size_t>(field)].dtype;
  ReadGeometry g;
  g.shift = header.bits_per_block - units.bits_per_block();
  Check(g.shift >= 0, ErrorCode::kInternal, "read units larger than the file's blocks");
  g.unit_samples = units.samples_per_block();
  g.file_block_bytes = dtype.BytesFor(int64_t{1} << header.bits_per_block);
  g.sb = dtype.SampleBytes();
  // Unit 0 holds levels 0..its bits; a coarser query needs only its first 2^max_level hz samples.
  g.unit0_needed = UnitSamplesNeeded(units, 0, max_level);
  return g;
}

// The bytes of one unit (the k-th of a read list): its own hz sub-range of a raw hz payload (a
// unit is a contiguous run of hz addresses), else the whole payload of its block (decoded once for
// all its units).
struct Want {
  size_t index;
  BlockEntry entry;
  bool raw_hz;
  uint64_t offset, size;  // the bytes to read
};

Want WantOf(const ReadGeometry& g, const BlockEntry& e, uint64_t unit, size_t index) {
  const bool raw_hz = !e.row_major() && e.codec_code() == static_cast<uint32_t>(Codec::kRaw) &&
                      e.size == static_cast<uint64_t>(g.file_block_bytes);
  Want w{index, e, raw_hz, e.offset, e.size};
  if (raw_hz) {
    const uint64_t sub = unit & ((uint64_t{1} << g.shift) - 1);
    w.offset = e.offset + sub * static_cast<uint64_t>(g.unit_samples * g.sb);
    w.size = static_cast<uint64_t>((unit == 0 ? g.unit0_needed : g.unit_samples) * g.sb);
  }
  return w;
}

// Calls fn(i, j, path) for every run [i, j) of `blocks` that lies in one block file.
template <class Fn>
void ForEachFile(const BlockFiles& files, const std::vector<uint64_t>& blocks, int shift, int64_t time, Fn&& fn) {
  for (size_t i = 0; i < blocks.size();) {
    const uint64_t first = files.FirstBlockInFile(blocks[i] >> shift);
    size_t j = i;
    while (j < blocks.size() && files.FirstBlockInFile(blocks[j] >> shift) == first) ++j;
    fn(i, j, files.FilePath(blocks[i] >> shift, time));
    i = j;
  }
}

// Whole hz-ordered units of samples this large are scattered into their grid (sequential reads of
// the hz-ordered source), smaller ones gathered (Permute): for 16 bytes and more the gather's reads
// of each row from all over a block of several MiB (an S3D species block: 5.5 MiB) cost more; for
// 4- and 8-byte samples the gather is faster (RESULTS.md, "the reader's permutation as a scatter").
constexpr int64_t kScatterMinSampleBytes = 16;

}  // namespace

int64_t UnitSamplesNeeded(const BlockLayout& units, uint64_t u, int max_level) {
  return u == 0 && max_level < units.BlockLevel(0) ? int64_t{1} << std::max(max_level, 0) : units.samples_per_block();
}

void HzUnitToRowMajor(const BlockLayout& units, uint64_t u, int max_level, const uint8_t* hz, int64_t sb, Span want,
                      uint8_t* out) {
  const int level = units.BlockLevel(u);
  const int64_t n = units.samples_per_block();
  if (UnitSamplesNeeded(units, u, max_level) < n)
    PermuteCoarse(out, hz, units.RowMajorToHz(level), sb, units, max_level, want);
  else if (want.begin == 0 && want.end == n && sb >= kScatterMinSampleBytes)
    ScatterSamples(out, hz, units.HzToRowMajor(level).data(), n, sb);
  else
    Permute(out, hz, units.RowMajorToHz(level), sb, want);
}

CachedShare CachedFileBytes(const ClassicBlockSource& source, const BlockLayout& units, int64_t time,
                            const std::vector<uint64_t>& blocks) {
  CachedShare share;
  const int shift = source.header().bits_per_block - units.bits_per_block();
  ForEachFile(source.files(), blocks, shift, time, [&](size_t, size_t, const std::string& path) {
    const std::shared_ptr<ReadFile> file = ReadFile::OpenIfExists(path);
    if (!file) return;
    // A sample of the file: kProbes windows spread over it (the whole of a small file); asking about
    // every page of every file cost several percent of a small read from the cache.
    constexpr uint64_t kProbes = 64, kWindow = 64 << 10;
    const uint64_t size = file->size();
    std::vector<std::pair<uint64_t, uint64_t>> probes;
    if (size <= kProbes * kWindow) {
      probes.emplace_back(0, size);
    } else {
      for (uint64_t k = 0; k < kProbes; ++k) probes.emplace_back((size - kWindow) / (kProbes - 1) * k, kWindow);
    }
    for (const auto& p : probes) share.bytes += static_cast<int64_t>(p.second);
    share.cached += static_cast<int64_t>(file->CachedBytes(probes));
  });
  return share;
}

namespace {

// A file's bytes are read in pieces of about this size, in file order, each permuted or decoded
// while the next is read: the reads stay in small buffers that keep their pages (one read per file,
// up to 128 MiB, was faulted in afresh on every call). Buffered, the kernel's sequential read-ahead
// streams the next piece; direct, the reader lane reads the next ones into other huge-page staging
// buffers, one request at a time (piece_read_ahead.h). A cold 2-rank restart read of 128^3 x 16
// float64 per rank ran 2.2x faster than with one read per file; more requests at once (fadvise
// WILLNEED of a round ahead, several threads) were slower on this machine's disk (RESULTS.md, "cold
// restart read", "direct reads from huge pages", "the direct read ahead on a thread that waits").
// Their size: PieceBytesFor.
constexpr uint64_t kNodeReadBytes = uint64_t{4} << 20;  // a node's direct reads in flight together
constexpr uint64_t kMinPieceBytes = uint64_t{2} << 20;  // one huge page of the staging buffers

// Within a piece, a gap between wanted bytes this large is skipped: reading it from the page
// cache costs more than the extra read call.
constexpr uint64_t kSkipGapBytes = uint64_t{128} << 10;

// A file's wanted units as (field, want), in file order.
using FileWants = std::vector<std::pair<size_t, Want>>;

// Consecutive units of `wants` from a, spanning at most `piece_bytes` (one unit at least): [a, b),
// the bytes [lo, hi) they lie in, and whether one read of them all is dense enough.
struct Piece {
  size_t b;
  uint64_t lo, hi;
  bool one_read;
};

Piece PieceFrom(const FileWants& wants, size_t a, uint64_t piece_bytes) {
  uint64_t lo = wants[a].second.offset, hi = lo + wants[a].second.size, sum = wants[a].second.size;
  size_t b = a + 1;
  for (; b < wants.size(); ++b) {
    const Want& w = wants[b].second;
    const uint64_t next_lo = std::min(lo, w.offset), next_hi = std::max(hi, w.offset + w.size);
    const bool repeat = wants[b - 1].second.offset == w.offset && wants[b - 1].second.size == w.size;  // units of one block
    if (!repeat && next_hi - next_lo > piece_bytes) break;
    lo = next_lo;
    hi = next_hi;
    if (!repeat) sum += w.size;
  }
  return Piece{b, lo, hi, hi - lo <= 2 * sum + (uint64_t{1} << 20)};
}

// Whether a file's wanted bytes (`wants`, by offset) are read past the page cache
// (ReadBlocksOptions::direct). kWhenUncached asks the page cache about a sample of them, up to
// kProbes windows at wants spread over the list: direct when less than half of it is cached.
bool ReadsDirect(DirectReads how, const ReadFile& file, const std::vector<std::pair<size_t, Want>>& wants) {
  if (how != DirectReads::kWhenUncached || wants.empty()) return how == DirectReads::kAlways;
  constexpr size_t kProbes = 32;
  constexpr uint64_t kWindow = uint64_t{64} << 10;
  std::vector<std::pair<uint64_t, uint64_t>> probes;  // disjoint, ascending (CachedBytes)
  uint64_t asked = 0, end = 0;
  const size_t step = std::max<size_t>(1, wants.size() / kProbes);
  for (size_t a = 0; a < wants.size(); a += step) {
    const Want& w = wants[a].second;
    if (w.offset < end) continue;  // the units of one block share their bytes
    probes.emplace_back(w.offset, std::min(w.size, kWindow));
    asked += probes.back().second;
    end = w.offset + probes.back().second;
  }
  return 2 * file.CachedBytes(probes) < asked;
}

}  // namespace

uint64_t PieceBytesFor(int node_ranks) {
  return std::max(kMinPieceBytes, kNodeReadBytes / static_cast<uint64_t>(std::max(node_ranks, 1)));
}

BlockReadStats ReadBlocks(ClassicBlockSource& source, const BlockLayout& units, const std::vector<FieldTarget>& targets,
                          int64_t time, const std::vector<uint64_t>& blocks, bool missing_files_are_errors,
                          int max_level, const ReadBlocksOptions& options) {
  BlockReadStats stats;
  if (targets.empty()) return stats;
  const std::vector<Span>* const rows = options.rows;
  const BlockSink* const sink = options.sink;
  const HzSink* const hz_sink = sink ? options.hz_sink : nullptr;
  Check(!(sink && rows), ErrorCode::kInvalidArgument, "ReadBlocks: a sink takes whole units, not rows of them");
  const IdxHeader& header = source.header();
  struct Target {
    const FieldTarget* target;
    const Field* field;
    ReadGeometry g;
    std::vector<uint8_t> fill;  // the field's default sample (§4.9)
  };
  std::vector<Target> fields;
  int64_t scratch_bytes = 0, unit_bytes = 0;
  for (const FieldTarget& t : targets) {
    const Field& f = header.fields[static_cast<size_t>(t.field)];
    fields.push_back(Target{&t, &f, GeometryOf(source, units, t.field, max_level), f.DefaultSample()});
    scratch_bytes = std::max(scratch_bytes, fields.back().g.file_block_bytes);
    unit_bytes = std::max(unit_bytes, fields.back().g.unit_samples * fields.back().g.sb);
  }
  // The same for every field: the units' shape.
  const int shift = fields.front().g.shift;
  const int64_t unit_samples = fields.front().g.unit_samples, unit0_needed = fields.front().g.unit0_needed;
  uint8_t* const scratch = Scratch(0, static_cast<size_t>(scratch_bytes)).data();
  const auto wanted = [&](size_t k) { return rows ? (*rows)[k] : Span{0, unit_samples}; };
  const bool hz_order = options.hz_order;
  Check(!(hz_order && (sink || rows)), ErrorCode::kInvalidArgument, "ReadBlocks: hz order keeps whole units at out");
  // With a sink, each unit goes to one reused buffer and is handed over at once; in hz order, a
  // row-major unit is decoded there first.
  uint8_t* const unit_buffer = sink || hz_order ? Scratch(2, static_cast<size_t>(unit_bytes)).data() : nullptr;
  const auto target_of = [&](size_t t, size_t k) { return sink ? unit_buffer : fields[t].target->out[k]; };
  const auto fill = [&](size_t t, size_t k) {  // never written: the field's default value (§4.9)
    FillWithSample(target_of(t, k), wanted(k).size(), fields[t].fill);
    if (sink) (*sink)(t, k, unit_buffer);
  };
  const auto file_block = [&](size_t k) { return blocks[k] >> shift; };
  // A unit's hz samples (all of them, or unit 0's first 2^max_level) into its place: offered whole
  // to the hz sink first, else permuted to row-major at dst. True when the hz sink took it.
  const auto place_hz = [&](size_t t, const Want& w, const uint8_t* hz_samples, uint8_t* dst) {
    const uint64_t u = blocks[w.index];
    const Span want = wanted(w.index);
    const bool whole = (u != 0 || unit0_needed == unit_samples) && want.begin == 0 && want.end == unit_samples;
    if (whole && hz_sink && (*hz_sink)(t, w.index, hz_samples, units.BlockLevel(u))) return true;
    HzUnitToRowMajor(units, u, max_level, hz_samples, fields[t].g.sb, want, dst);
    return false;
  };
  std::optional<BlockLayout> file_layout;  // the file's own blocks: only for row-major payloads
  // The files in block order; each planned (its table read, its wanted units listed, absent ones
  // filled) when its turn comes, or as soon as the one before it reads a piece direct: the first
  // pieces of the next file are then read ahead too, so the disk does not wait at a file's end.
  struct FileRun {
    size_t i, j;
    std::string path;
  };
  std::vector<FileRun> runs;
  ForEachFile(source.files(), blocks, shift, time,
              [&](size_t i, size_t j, const std::string& path) { runs.push_back(FileRun{i, j, path}); });
  using Table = std::shared_ptr<const ClassicBlockSource::FileTable>;
  struct FilePlan {
    Table file;
    FileWants wants;
    bool uncached;
  };
  const auto plan_file = [&](const FileRun& run) {
    const size_t i = run.i, j = run.j;
    const std::string& path = run.path;
    FilePlan plan{source.Table(path), {}, false};
    const Table& file = plan.file;
    if (!file->file) {
      Check(!missing_files_are_errors, ErrorCode::kNotFound,
            "block file " + path + " is missing (it should hold block " + std::to_string(file_block(i)) +
                " of field '" + fields.front().field->name + "', timestep " + std::to_string(time) + ")");
      for (size_t t = 0; t < fields.size(); ++t)
        for (size_t k = i; k < j; ++k) fill(t, k);
      return plan;
    }
    // Every field's units of this file, in file order: the file is read in one pass even where its
    // blocks interleave the fields (the S3D case: each block's four fields side by side).
    FileWants& wants = plan.wants;
    for (size_t t = 0; t < fields.size(); ++t) {
      for (size_t k = i; k < j; ++k) {
        const BlockEntry e = source.Entry(*file, fields[t].target->field, file_block(k));
        if (!e.Present()) {
          fill(t, k);
          continue;
        }
        wants.emplace_back(t, WantOf(fields[t].g, e, blocks[k], k));
      }
    }
    // Stable: the units of one block (same bytes) stay together, in order.
    std::stable_sort(wants.begin(), wants.end(),
                     [](const auto& x, const auto& y) { return x.second.offset < y.second.offset; });
    plan.uncached = ReadsDirect(options.direct, *file->file, wants);
    return plan;
  };
  // Uncached pieces are read with O_DIRECT, the next ones (of this file or the next) on the reader
  // lane while this one is placed (a direct read has no kernel read-ahead behind it).
  const auto read_uncached = [&source](const Table& file, const Piece& p, LargeAllocation& staging) {
    bool direct = false;
    const uint8_t* bytes = source.ReadRangeUncached(*file, p.lo, p.hi - p.lo, staging, &direct);
    return PieceReadAhead::Got{bytes, direct};
  };
  const auto read_of = [&read_uncached](const Table& file, const Piece& p) {
    return [&read_uncached, file, p](LargeAllocation& staging) { return read_uncached(file, p, staging); };
  };
  std::optional<FilePlan> next_plan;  // of runs[n + 1], planned ahead by file n
  PieceReadAhead ahead(kReadsAhead, uncached_staging);
  size_t ahead_run = 0;  // where the next piece to read ahead starts: file (run) and its first want
  size_t ahead_at = 0;
  // Queues the reads of the pieces after the one of file n that ends at want b, up to the depth:
  // of file n, then of file n + 1, as long as they are single direct reads. File n + 1 is planned
  // (its table read) here while file n's reads are queued, so the lane never waits for that.
  const auto read_ahead = [&](size_t n, size_t b, FilePlan& plan) {
    if (!next_plan && n + 1 < runs.size()) next_plan = plan_file(runs[n + 1]);
    if (ahead.queued() == 0) {
      ahead_run = n;
      ahead_at = b;
    }
    while (!ahead.full()) {
      if (ahead_run == n && ahead_at >= plan.wants.size()) {
        if (!next_plan) return;
        ahead_run = n + 1;
        ahead_at = 0;
      }
      const FilePlan& p = ahead_run == n ? plan : *next_plan;
      if (!p.file->file || !p.uncached || ahead_at >= p.wants.size()) return;
      const Piece piece = PieceFrom(p.wants, ahead_at, options.piece_bytes);
      if (!piece.one_read) return;
      ahead.Submit({ahead_run, piece.lo}, read_of(p.file, piece));
      ahead_at = piece.b;
    }
  };
  const auto process_file = [&](size_t n) {
    const std::string& path = runs[n].path;
    FilePlan plan = next_plan ? std::move(*next_plan) : plan_file(runs[n]);
    next_plan.reset();
    if (!plan.file->file) return;  // missing: filled
    const Table& file = plan.file;
    FileWants& wants = plan.wants;
    const bool uncached = plan.uncached;
    // Kept in hz order, buffered, raw hz units that follow each other both in the file and at
    // their targets are read straight into place, one read per such run (the kernel copy is their
    // only pass over memory); the others go the way below.
    if (hz_order && !uncached) {
      FileWants rest;
      for (size_t a = 0; a < wants.size();) {
        const auto& [t, first] = wants[a];
        if (!first.raw_hz) {
          rest.push_back(wants[a++]);
          continue;
        }
        uint64_t end = first.offset + first.size;
        uint8_t* const into = target_of(t, first.index);
        size_t b = a + 1;
        for (; b < wants.size(); ++b) {
          const auto& [tb, w] = wants[b];
          if (tb != t || !w.raw_hz || w.offset != end || target_of(t, w.index) != into + (end - first.offset)) break;
          end += w.size;
        }
        source.ReadRange(*file, first.offset, end - first.offset, into);
        stats.file_bytes += static_cast<int64_t>(end - first.offset);
        a = b;
      }
      wants = std::move(rest);
    }
    // Pieces of consecutive units spanning at most piece_bytes (one unit at least): one read per
    // piece when it is dense enough, else one read per range.
    std::vector<uint8_t> own;
    size_t decoded_field = SIZE_MAX;
    uint64_t decoded_block = UINT64_MAX;  // the file block (of decoded_field) whose payload `scratch` holds decoded
    for (size_t a = 0; a < wants.size();) {
      const Piece piece = PieceFrom(wants, a, options.piece_bytes);
      const size_t b = piece.b;
      const uint64_t lo = piece.lo, hi = piece.hi;
      const uint8_t* span = nullptr;
      const bool one_read = piece.one_read;
      if (one_read && uncached) {
        const PieceReadAhead::Got got = ahead.Take({n, lo}, read_of(file, piece));
        span = got.bytes;
        stats.file_bytes += static_cast<int64_t>(hi - lo);
        if (got.direct) stats.direct_bytes += static_cast<int64_t>(hi - lo);
        read_ahead(n, b, plan);
      } else if (one_read) {
        // The piece's wanted bytes, each into its place in the buffer; gaps of kSkipGapBytes and
        // more are not read (a rank's own units may alternate with other ranks' within blocks).
        uint8_t* into = Scratch(1, static_cast<size_t>(hi - lo)).data();
        for (size_t c = a; c < b;) {
          const uint64_t run_lo = wants[c].second.offset;
          uint64_t run_hi = run_lo + wants[c].second.size;
          for (++c; c < b && wants[c].second.offset < run_hi + kSkipGapBytes; ++c)
            run_hi = std::max(run_hi, wants[c].second.offset + wants[c].second.size);
          source.ReadRange(*file, run_lo, run_hi - run_lo, into + (run_lo - lo));
          stats.file_bytes += static_cast<int64_t>(run_hi - run_lo);
        }
        span = into;
      }
      if (one_read && options.placers && !hz_order &&
          std::all_of(wants.begin() + a, wants.begin() + b, [&](const auto& tw) {
            return tw.second.raw_hz && fields[tw.first].field->dtype.ByteAligned();  // else refused below
          })) {
        // Nothing shared between these units (no decoded block): the pool's threads and this one
        // place them at once, each unit by whichever takes it next, into its own unit buffer.
        const auto t0 = std::chrono::steady_clock::now();
        options.placers->ParallelFor(static_cast<int64_t>(b - a), [&](int64_t k) {
          const auto& [t, w] = wants[a + static_cast<size_t>(k)];
          uint8_t* const dst = sink ? Scratch(2, static_cast<size_t>(unit_bytes)).data() : fields[t].target->out[w.index];
          if (!place_hz(t, w, span + (w.offset - lo), dst) && sink) (*sink)(t, w.index, dst);
        });
        stats.layout_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        a = b;
        continue;
      }
      for (; a < b; ++a) {
        const size_t t = wants[a].first;
        const Want& w = wants[a].second;
        const Field& field = *fields[t].field;
        const DType& dtype = field.dtype;
        const int64_t sb = fields[t].g.sb, file_block_bytes = fields[t].g.file_block_bytes;
        const uint64_t u = blocks[w.index], fb = file_block(w.index);
        const bool decoded = decoded_field == t && decoded_block == fb;  // `scratch` holds this payload decoded
        const std::string where = path + " block " + std::to_string(fb);
        const uint8_t* payload = own.data();
        if (one_read) {
          payload = span + (w.offset - lo);
        } else if (w.raw_hz || !decoded) {  // else its block is decoded in scratch already
          own.resize(static_cast<size_t>(w.size));
          source.ReadRange(*file, w.offset, w.size, own.data());
          stats.file_bytes += static_cast<int64_t>(w.size);
          payload = own.data();
        }
        const Codec codec = CodecFromCode(w.entry.codec_code(), where);
        // zfp takes its mode from the field's spec, png/jpg/zfp the block grid's shape (§5, §4.1).
        auto decode = [&](uint8_t* into) {
          Decode(CodecSpec::ForBlock(codec, field.compression), payload, w.entry.size,
                 SampleShape{dtype, source.layout().BlockGrid(fb).count}, into, static_cast<size_t>(file_block_bytes),
                 where);
        };
        auto decode_to_scratch = [&] {
          if (decoded) return;
          decode(scratch);
          decoded_field = t;
          decoded_block = fb;
        };
        uint8_t* const dst = target_of(t, w.index);
        const Span want = wanted(w.index);
        const int level = units.BlockLevel(u);
        const int64_t needed = u == 0 ? unit0_needed : unit_samples;  // hz samples of the unit the query has
        // A row-major payload's rows of the unit (a sub-lattice of its block's grid when units are finer).
        const auto row_major_into = [&](uint8_t* out, Span rows_wanted) {
          if (shift == 0 && rows_wanted.size() == unit_samples) return decode(out);
          decode_to_scratch();
          if (shift == 0)
            return static_cast<void>(std::memcpy(out, scratch + rows_wanted.begin * sb, static_cast<size_t>(rows_wanted.size() * sb)));
          if (!file_layout) file_layout.emplace(header.bitmask, header.bits_per_block);
          CopyUnitRows(*file_layout, fb, units, u, rows_wanted, scratch, out, sb);
        };
        // Decodes the unit into dst; true when the hz sink took it instead.
        const auto decode_unit = [&] {
          if (w.entry.row_major()) {
            if (!hz_order) {
              row_major_into(dst, want);
              return false;
            }
            row_major_into(unit_buffer, Span{0, unit_samples});  // then into hz order
            Permute(dst, unit_buffer, units.HzToRowMajor(level), sb, Span{0, needed});
            return false;
          }
          Check(dtype.ByteAligned(), ErrorCode::kUnsupported, where + ": hz-ordered blocks of sub-byte dtypes");
          const auto t0 = std::chrono::steady_clock::now();  // no MPI here: may run on an I/O thread
          const uint8_t* hz_samples = payload;  // raw hz unit: permuted straight from the file bytes
          if (!w.raw_hz) {
            decode_to_scratch();
            hz_samples = scratch + static_cast<int64_t>(u & ((uint64_t{1} << shift) - 1)) * unit_samples * sb;
          }
          if (hz_order) {  // kept as stored: whoever places it permutes it (not counted as layout)
            std::memcpy(dst, hz_samples, static_cast<size_t>(needed * sb));
            return false;
          }
          const bool taken = place_hz(t, w, hz_samples, dst);
          stats.layout_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          return taken;
        };
        if (!decode_unit() && sink) {
          const auto t0 = std::chrono::steady_clock::now();
          (*sink)(t, w.index, dst);
          stats.layout_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        }
      }
    }
  };
  for (size_t n = 0; n < runs.size(); ++n) process_file(n);
  TrimScratch();
  return stats;
}

}  // namespace hzio::mpi
