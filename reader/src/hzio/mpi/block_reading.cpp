#include "hzio/mpi/block_reading.h"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "hzio/codec/codec.h"
#include "hzio/mpi/block_file_io.h"
#include "hzio/mpi/box_copy.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

bool BlockTouchesBox(const BlockLayout& layout, uint64_t block, const Box& box) {
  const Grid g = layout.BlockGrid(block);
  AxisCopy plan[kMaxDims];
  return PlanGridCopy(g, g, box, plan);
}

void CopyPlanned(const uint8_t* src, const Point& src_count, uint8_t* dst, const Point& dst_count,
                 const AxisCopy (&plan)[kMaxDims], int dims, int64_t sb) {
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
      std::memcpy(dp, sp, static_cast<size_t>(x.count * sb));
    } else {
      for (int64_t m = 0; m < x.count; ++m)
        std::memcpy(dp + m * x.dst_step * sb, sp + m * x.src_step * sb, static_cast<size_t>(sb));
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

// out[r] = in[table[r]] for samples of `sb` bytes; typed copies for the common sizes.
template <class Word>
void PermuteWords(uint8_t* out, const uint8_t* in, const std::vector<uint32_t>& table, int64_t words, Span rows) {
  Word* o = reinterpret_cast<Word*>(out);
  const Word* i = reinterpret_cast<const Word*>(in);
  const uint32_t* t = table.data() + rows.begin;
  const int64_t n = rows.size();
  if (words == 1) {
    for (int64_t r = 0; r < n; ++r) std::memcpy(o + r, i + t[r], sizeof(Word));
    return;
  }
  // Vector samples: a word loop (a memcpy call of a variable size per sample cost more).
  for (int64_t r = 0; r < n; ++r) {
    Word* dst = o + r * words;
    const Word* src = i + static_cast<int64_t>(t[r]) * words;
    for (int64_t w = 0; w < words; ++w) std::memcpy(dst + w, src + w, sizeof(Word));
  }
}

// out[r - rows.begin] = in[table[r]] for the row-major indices r of `rows`.
void Permute(uint8_t* out, const uint8_t* in, const std::vector<uint32_t>& table, int64_t sb, Span rows) {
  if (sb % 8 == 0) return PermuteWords<uint64_t>(out, in, table, sb / 8, rows);
  if (sb % 4 == 0) return PermuteWords<uint32_t>(out, in, table, sb / 4, rows);
  if (sb % 2 == 0) return PermuteWords<uint16_t>(out, in, table, sb / 2, rows);
  PermuteWords<uint8_t>(out, in, table, sb, rows);
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

// Scratch memory reused across calls, so repeated reads do not pay page faults again; buffers
// above kKeepScratch are given back after each call.
constexpr size_t kKeepScratch = size_t{64} << 20;
thread_local std::vector<uint8_t> scratch_buffers[2];

std::vector<uint8_t>& Scratch(int which, size_t bytes) {
  std::vector<uint8_t>& b = scratch_buffers[which];
  if (b.size() < bytes) b.resize(bytes);
  return b;
}

void TrimScratch() {
  for (std::vector<uint8_t>& b : scratch_buffers)
    if (b.size() > kKeepScratch) std::vector<uint8_t>().swap(b);
}

}  // namespace

BlockReadStats ReadBlocks(const IdxHeader& header, const BlockLayout& layout, const BlockFiles& files, int field,
                          int64_t time, const std::vector<uint64_t>& blocks, const std::vector<uint8_t*>& out,
                          bool missing_files_are_errors, int max_level, const std::vector<Span>* rows) {
  BlockReadStats stats;
  const DType& dtype = header.fields[static_cast<size_t>(field)].dtype;
  const int64_t block_bytes = dtype.BytesFor(layout.samples_per_block());
  const int64_t sb = dtype.SampleBytes();
  const int64_t bpf = files.blocks_per_file();
  const int64_t slots = bpf * static_cast<int64_t>(header.fields.size());
  uint8_t* const scratch = Scratch(0, static_cast<size_t>(block_bytes)).data();
  const std::vector<uint8_t> fill = DefaultSample(header.fields[static_cast<size_t>(field)]);
  // Block 0 holds levels 0..bpb; a coarser query needs only its first 2^max_level hz samples.
  const int64_t block0_needed =
      max_level < layout.BlockLevel(0) ? int64_t{1} << std::max(max_level, 0) : layout.samples_per_block();
  const auto wanted = [&](size_t k) { return rows ? (*rows)[k] : Span{0, layout.samples_per_block()}; };
  for (size_t i = 0; i < blocks.size();) {
    const uint64_t first = files.FirstBlockInFile(blocks[i]);
    size_t j = i;
    while (j < blocks.size() && files.FirstBlockInFile(blocks[j]) == first) ++j;
    const std::string path = files.FilePath(blocks[i], time);
    std::optional<BlockFileReader> file = BlockFileReader::Open(path, header.version, slots);
    if (!file) {
      Check(!missing_files_are_errors, ErrorCode::kNotFound,
            "block file " + path + " is missing (it should hold block " + std::to_string(blocks[i]) + " of field '" +
                header.fields[static_cast<size_t>(field)].name + "', timestep " + std::to_string(time) + ")");
      for (size_t k = i; k < j; ++k) FillSamples(out[k], wanted(k).size(), fill);  // §4.9
      i = j;
      continue;
    }
    // One read covering all needed payloads when they are dense enough, else one per block.
    struct Want { size_t index; BlockEntry entry; };
    std::vector<Want> wants;
    uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
    for (size_t k = i; k < j; ++k) {
      BlockEntry e = file->entries()[static_cast<size_t>(field * bpf + files.PositionInFile(blocks[k]))];
      if (!e.Present()) {  // never written: the field's default value (§4.9)
        FillSamples(out[k], wanted(k).size(), fill);
        continue;
      }
      // A raw hz block 0 is read only as far as the query's levels reach.
      if (blocks[k] == 0 && !e.row_major() && e.codec_code() == static_cast<uint32_t>(Codec::kRaw) &&
          e.size == static_cast<uint64_t>(block_bytes))
        e.size = static_cast<uint64_t>(block0_needed * sb);
      wants.push_back(Want{k, e});
      lo = std::min(lo, e.offset);
      hi = std::max(hi, e.offset + e.size);
      sum += e.size;
    }
    uint8_t* span = nullptr;
    const bool one_read = !wants.empty() && hi - lo <= 2 * sum + (uint64_t{1} << 20);
    if (one_read) {
      span = Scratch(1, static_cast<size_t>(hi - lo)).data();
      file->ReadAt(lo, hi - lo, span);
    }
    for (const Want& w : wants) {
      const uint64_t b = blocks[w.index];
      const std::string where = path + " block " + std::to_string(b);
      std::vector<uint8_t> own;
      const uint8_t* payload;
      if (one_read) {
        payload = span + (w.entry.offset - lo);
      } else {
        own.resize(static_cast<size_t>(w.entry.size));
        file->ReadAt(w.entry.offset, w.entry.size, own.data());
        payload = own.data();
      }
      const Codec codec = CodecFromCode(w.entry.codec_code(), where);
      uint8_t* dst = out[w.index];
      const Span want = wanted(w.index);
      if (w.entry.row_major()) {
        if (want.size() == layout.samples_per_block()) {
          Decode(codec, payload, w.entry.size, dst, static_cast<size_t>(block_bytes), where);
        } else {
          Decode(codec, payload, w.entry.size, scratch, static_cast<size_t>(block_bytes), where);
          std::memcpy(dst, scratch + want.begin * sb, static_cast<size_t>(want.size() * sb));
        }
        continue;
      }
      Check(dtype.ByteAligned(), ErrorCode::kUnsupported, where + ": hz-ordered blocks of sub-byte dtypes");
      const double t0 = MPI_Wtime();
      const std::vector<uint32_t>& table = layout.RowMajorToHz(layout.BlockLevel(b));
      const bool partial = b == 0 && block0_needed < layout.samples_per_block();
      const uint8_t* hz_samples = payload;  // raw hz block: permuted straight from the file bytes
      const int64_t raw_samples = partial ? block0_needed : layout.samples_per_block();
      if (!(codec == Codec::kRaw && w.entry.size == static_cast<uint64_t>(raw_samples * sb))) {
        Decode(codec, payload, w.entry.size, scratch, static_cast<size_t>(block_bytes), where);
        hz_samples = scratch;
      }
      if (partial)
        PermuteCoarse(dst, hz_samples, table, sb, layout, max_level, want);
      else
        Permute(dst, hz_samples, table, sb, want);
      stats.layout_seconds += MPI_Wtime() - t0;
    }
    stats.file_bytes += file->bytes_read();
    i = j;
  }
  TrimScratch();
  return stats;
}

}  // namespace hzio::mpi
