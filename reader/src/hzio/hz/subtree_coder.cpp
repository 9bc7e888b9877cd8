#include "hzio/hz/subtree_coder.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "hzio/hz/hz_order.h"
#include "hzio/hz/sample_kernels.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

// A tile's samples should stay in the caches while its levels are gathered: 32 KiB of samples. Twice
// 16 KiB makes the tiles of a 3-D float32 array 16 samples wide where they were 8 (rows of whole
// cache lines, which are staged): the 2-rank 512^3 float32 write's hz phase 0.26-0.29 -> 0.21-0.23 s,
// and no row measured slower (bench/mpi/RESULTS.md, "tiles of 32 KiB").
constexpr int64_t kTileBytes = int64_t{32} << 10;
constexpr int64_t kCacheLineBytes = 64;
// Encode copies the rows of a slab of tiles side by side along x (of every tile at once) up to this
// size: about the L2 cache of a core. Rows of 512 bytes and more stream from memory at copy speed,
// where one tile's rows of 64 bytes, 2 KiB apart on 32 planes, cost a memory latency each: one
// 512^3 float32 cell 0.141 -> 0.101 s in one pass, 0.201 -> 0.106 s in the writer's eight rounds;
// slabs of 256 KiB to 16 MiB alike, of 64 KiB (rows of 128 bytes) no faster than single tiles
// (bench/mpi/RESULTS.md, "slabs of tiles").
constexpr int64_t kSlabBytes = int64_t{1} << 20;

// Asks for the cache lines of a tile's rows ahead of use: a tile's samples are gathered (scattered)
// in Z order across all its rows at once, which no hardware prefetcher predicts, so without this
// every row costs a full memory latency (measured: 92% of the gather's time on its loads).
void PrefetchRows(const uint8_t* base, const std::vector<int64_t>& rows, int64_t row_bytes, bool for_write) {
  for (const int64_t row : rows) {
    const uint8_t* p = base + row;
    for (int64_t at = 0; at < row_bytes; at += 64) {
      if (for_write) __builtin_prefetch(p + at, 1, 3);
      else __builtin_prefetch(p + at, 0, 1);
    }
    if (for_write) __builtin_prefetch(p + row_bytes - 1, 1, 3);
    else __builtin_prefetch(p + row_bytes - 1, 0, 1);
  }
}

// Copies the rows of a slab (from `first`, its first tile's first sample) that hold samples of
// `levels` (bit t: in-tile level t; `row_levels` per row, byte offsets `rows` of a tile's rows,
// `row_bytes` each) to `staged`, row r at r · row_bytes. A size known at compile time is a few
// vector moves; a memcpy call per 64-byte row costs about as much as the gather it serves.
template <size_t kRowBytes>
void StageRows(const uint8_t* first, const std::vector<int64_t>& rows, const uint32_t* row_levels, uint32_t levels,
               int64_t row_bytes, uint8_t* staged) {
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!(row_levels[r] & levels)) continue;
    if constexpr (kRowBytes > 0) std::memcpy(staged + r * kRowBytes, first + rows[r], kRowBytes);
    else std::memcpy(staged + static_cast<int64_t>(r) * row_bytes, first + rows[r], static_cast<size_t>(row_bytes));
  }
}

void StageAnyRows(const uint8_t* first, const std::vector<int64_t>& rows, const uint32_t* row_levels, uint32_t levels,
                  int64_t row_bytes, uint8_t* staged) {
  switch (row_bytes) {
    case 64: return StageRows<64>(first, rows, row_levels, levels, row_bytes, staged);
    case 128: return StageRows<128>(first, rows, row_levels, levels, row_bytes, staged);
    case 256: return StageRows<256>(first, rows, row_levels, levels, row_bytes, staged);
    default: return StageRows<0>(first, rows, row_levels, levels, row_bytes, staged);
  }
}

// A resolver's span holds 1..asked samples (RunResolver); the message is built only when it does not.
void CheckResolved(const RunSpan& s, int64_t asked) {
  if (s.count < 1 || s.count > asked)
    throw Error(ErrorCode::kInternal, "HZ coding: the resolver returned " + std::to_string(s.count) +
                                          " samples for a run of " + std::to_string(asked));
}

}  // namespace

// One level's run of the subtree being coded: where it stands and the span it is in.
struct SubtreeCoder::Cursor {
  uint64_t hz = 0;
  int64_t run_left = 0;
  uint8_t* data = nullptr;
  int64_t span_left = 0;

  // Hands the next `n` samples of the run to `fn(memory, count, first)` span by span (`first`:
  // index of the span's first sample among the n); skipped spans are passed over.
  template <class Fn>
  void Take(int64_t n, int64_t sb, const RunResolver& resolve, Fn&& fn) {
    int64_t first = 0;
    while (n > 0) {
      if (span_left == 0) {
        const RunSpan s = resolve(hz, run_left);
        CheckResolved(s, run_left);
        data = s.data;
        span_left = s.count;
      }
      const int64_t m = std::min(n, span_left);
      if (data) {
        fn(data, m, first);
        data += m * sb;
      }
      span_left -= m;
      run_left -= m;
      hz += static_cast<uint64_t>(m);
      n -= m;
      first += m;
    }
  }
};

SubtreeCoder::SubtreeCoder(const Bitmask& bitmask, int level, int bits, const Point& strides, int64_t sample_bytes)
    : bitmask_(bitmask), level_(level), bits_(bits), sample_bytes_(sample_bytes) {
  const int n = bitmask.dims();
  Check(level >= 0 && level <= bitmask.maxh() && bits >= 0 && bits <= level, ErrorCode::kInternal,
        "HZ coding: subtree of " + std::to_string(bits) + " bits at level " + std::to_string(level) + " (maxh " +
            std::to_string(bitmask.maxh()) + ")");
  Check(sample_bytes >= 1, ErrorCode::kInternal, "HZ coding: samples of less than a byte");
  extent_ = Point(n, 1);
  for (int d = 0; d < n && bits > 0; ++d) extent_[d] = int64_t{1} << bitmask.Count(d, level - bits + 1, level);
  // Z bit b (from the least significant) is pattern position level - b; it carries the bit of its
  // axis' lattice coordinate numbered by the positions of that axis to its right (§3.1).
  for (int b = 0; b < bits; ++b) {
    const int p = level - b, a = bitmask.axis(p), c = bitmask.Count(a, p + 1, level);
    axis_.push_back(a);
    coord_bit_.push_back(c);
    contribution_.push_back(strides[a] << c);
  }
  // Tiles of about kTileBytes whose offsets fit 32 bits (always, but for absurd strides).
  int k = 0;
  while (k < bits && (int64_t{1} << (k + 1)) * sample_bytes <= kTileBytes) ++k;
  for (;;) {
    int64_t span = 0;
    for (int b = 0; b < k; ++b) span += contribution_[static_cast<size_t>(b)];
    if (span <= std::numeric_limits<uint32_t>::max() || k == 0) break;
    --k;
  }
  tile_bits_ = k;
  // Moving from tile i-1 to tile i sets tile-index bit tz = countr_zero(i) and clears the bits
  // below it, all of which were set: the base offset changes by contribution(tz) minus theirs.
  int64_t below = 0;
  for (int j = 0; j < bits - k; ++j) {
    tile_step_.push_back(contribution_[static_cast<size_t>(k + j)] - below);
    below += contribution_[static_cast<size_t>(k + j)];
  }
  tile_extent_ = Point(n, 1);
  for (int b = 0; b < k; ++b) tile_extent_[axis_[static_cast<size_t>(b)]] *= 2;
  // The tile's rows along axis 0 (contiguous in the usual row-major array), for prefetching.
  tile_row_bytes_ = (strides[0] * (tile_extent_[0] - 1) + 1) * sample_bytes;
  // In-tile hz order (§3.2 applied to the k-bit tile): index HzFromZ(q, k) holds tile-local Z q,
  // so level t of the tile (t < k) is the contiguous segment [2^(k-t-1), 2^(k-t)).
  const size_t tile = size_t{1} << k;
  tile_table_.assign(tile, 0);
  tile_points_.assign(tile * static_cast<size_t>(n), 0);
  for (uint64_t q = 0; q < tile; ++q) {
    const uint64_t m = HzFromZ(q, k);
    int64_t offset = 0;
    for (int b = 0; b < k; ++b)
      if ((q >> b) & 1) {
        offset += contribution_[static_cast<size_t>(b)];
        tile_points_[m * static_cast<size_t>(n) + static_cast<size_t>(axis_[static_cast<size_t>(b)])] +=
            static_cast<uint16_t>(1u << coord_bit_[static_cast<size_t>(b)]);
      }
    tile_table_[m] = static_cast<uint32_t>(offset);
    bool row_start = true;
    for (int b = 0; b < k; ++b) row_start = row_start && !(((q >> b) & 1) && axis_[static_cast<size_t>(b)] == 0);
    if (row_start) tile_rows_.push_back(offset * sample_bytes);
  }
  std::sort(tile_rows_.begin(), tile_rows_.end());  // address order: a copy the prefetchers follow
  static_assert(kTileBytes < int64_t{1} << 32, "a tile's levels are bits of a 32-bit mask (k < 32)");
  if (k == 0 || strides[0] != 1) return;  // rows not contiguous: gathered in place
  // The slab: the tiles that differ only in the lowest tile-index bits of axis 0, as many as fit
  // kSlabBytes; their rows lie side by side in the array, so a slab row is one contiguous copy.
  for (int j = 0; j < bits - k; ++j) {
    if (axis_[static_cast<size_t>(k + j)] != 0) continue;
    if ((static_cast<int64_t>(tile_rows_.size()) * tile_row_bytes_ << (slab_bits_.size() + 1)) > kSlabBytes) break;
    slab_bits_.push_back(j);
    slab_mask_ |= uint64_t{1} << j;
  }
  slab_row_bytes_ = tile_row_bytes_ << slab_bits_.size();
  // Slab rows of whole cache lines are copied (see the header); narrower ones (a subtree only a few
  // samples wide) were slower through a copy (bench/mpi/RESULTS.md, "the tile's rows staged").
  staged_ = slab_row_bytes_ >= kCacheLineBytes;
  if (!staged_) return;
  const int64_t slab_row_samples = slab_row_bytes_ / sample_bytes;
  slab_table_.assign(tile, 0);
  row_levels_.assign(tile_rows_.size(), 0);
  for (size_t m = 1; m < tile; ++m) {
    const int64_t x = tile_points_[m * static_cast<size_t>(n)];  // its place in its row (axis 0, stride 1)
    const int64_t start = (static_cast<int64_t>(tile_table_[m]) - x) * sample_bytes;
    const size_t row = static_cast<size_t>(std::lower_bound(tile_rows_.begin(), tile_rows_.end(), start) - tile_rows_.begin());
    slab_table_[m] = static_cast<uint32_t>(static_cast<int64_t>(row) * slab_row_samples + x);
    row_levels_[row] |= uint32_t{1} << (static_cast<size_t>(k) - std::bit_width(m));  // level t = k - bit_width(m)
  }
}

int SubtreeCoder::FittingBits(const Bitmask& bitmask, int level, const Point& box_extent) {
  int bits = 0;
  while (bits < level) {
    bool fits = true;
    for (int d = 0; d < bitmask.dims(); ++d)
      if ((int64_t{1} << bitmask.Count(d, level - bits, level)) > box_extent[d]) fits = false;
    if (!fits) break;
    ++bits;
  }
  return bits;
}

uint64_t SubtreeCoder::RunStart(uint64_t z, int t) const {
  return (z >> (t + 1)) + (uint64_t{1} << (level_ - t - 1));
}

uint64_t SubtreeCoder::RootHz(uint64_t z) const { return HzFromZ(z, level_); }

uint64_t SubtreeCoder::SubtreeZ(const Point& origin) const {
  return bitmask_.Interleave(origin) >> (bitmask_.maxh() - level_);
}

int64_t SubtreeCoder::CoarseOffset(uint64_t local_z) const {
  int64_t offset = 0;
  for (uint64_t rest = local_z; rest != 0; rest &= rest - 1)
    offset += contribution_[static_cast<size_t>(std::countr_zero(rest))];
  return offset;
}

Point SubtreeCoder::LocalPoint(uint64_t local_z) const {
  Point p(bitmask_.dims());
  for (uint64_t rest = local_z; rest != 0; rest &= rest - 1) {
    const size_t b = static_cast<size_t>(std::countr_zero(rest));
    p[axis_[b]] += int64_t{1} << coord_bit_[b];
  }
  return p;
}

bool SubtreeCoder::TileInside(uint64_t tile, const Box& clip, bool* partial) const {
  const Point lo = LocalPoint(tile << tile_bits_);
  bool whole = true;
  for (int d = 0; d < bitmask_.dims(); ++d) {
    const int64_t hi = lo[d] + tile_extent_[d];
    if (hi <= clip.p1[d] || lo[d] >= clip.p2[d]) return false;
    whole = whole && lo[d] >= clip.p1[d] && hi <= clip.p2[d];
  }
  *partial = !whole;
  return true;
}

std::vector<SubtreeCoder::Cursor> SubtreeCoder::LevelCursors(uint64_t z) const {
  std::vector<Cursor> cursors(static_cast<size_t>(bits_));
  for (int t = 0; t < bits_; ++t) cursors[static_cast<size_t>(t)] = Cursor{RunStart(z, t), RunLength(t)};
  return cursors;
}

// The tiles in hz order, each with its origin's offset (samples) from `at_origin`; the rows of the
// next tile are prefetched while `visit` works on this one, when `wanted` says it will be read.
template <typename Wanted, typename Visit>
void SubtreeCoder::ForEachTile(const uint8_t* at_origin, bool for_write, Wanted&& wanted, Visit&& visit) const {
  const uint64_t tiles = uint64_t{1} << (bits_ - tile_bits_);
  const auto next_base = [&](uint64_t tile, int64_t base) {
    return base + tile_step_[static_cast<size_t>(std::countr_zero(tile))];
  };
  int64_t base = 0;
  for (uint64_t tile = 0; tile < tiles; ++tile) {
    if (tile > 0) base = next_base(tile, base);
    if (tile + 1 < tiles && wanted(tile + 1))
      PrefetchRows(at_origin + next_base(tile + 1, base) * sample_bytes_, tile_rows_, tile_row_bytes_, for_write);
    visit(tile, base);
  }
}

bool SubtreeCoder::Meets(uint64_t z, const HzRange& range) const {
  if (range.Meets(RootHz(z), 1)) return true;
  for (int t = 0; t < bits_; ++t)
    if (range.Meets(RunStart(z, t), RunLength(t))) return true;
  return false;
}

namespace {

// Hands the samples [hz, hz + count) of one run that lie in `range` to `sink`, span by span:
// fn(memory, n, first) for each span it gives memory for (`first`: index of the span's first
// sample among the count); skipped spans are passed over.
template <class Fn>
void Emit(uint64_t hz, int64_t count, const HzRange& range, const RunResolver& sink, Fn&& fn) {
  const uint64_t end = std::min(hz + static_cast<uint64_t>(count), range.end);
  for (uint64_t at = std::max(hz, range.begin); at < end;) {
    const RunSpan s = sink(at, static_cast<int64_t>(end - at));
    CheckResolved(s, static_cast<int64_t>(end - at));
    if (s.data) fn(s.data, s.count, static_cast<int64_t>(at - hz));
    at += static_cast<uint64_t>(s.count);
  }
}

}  // namespace

void SubtreeCoder::Encode(const Point& origin, const uint8_t* at_origin, const RunResolver& sink,
                          const HzRange& range) const {
  const int k = tile_bits_;
  const int64_t sb = sample_bytes_;
  const SampleKernel kernel = GatherKernel(sb);
  const uint64_t z = SubtreeZ(origin);
  if (!Meets(z, range)) return;
  // Level t's piece of tile i is [RunStart(z, t) + i·n_t, + n_t) with n_t = 2^(k-t-1): the tiles
  // whose piece meets the range form one interval per level; a tile in none of them is not read.
  // The in-tile levels asked for (`levels`) are also those a staged slab copies the rows of (a
  // round of the parallel writer: only the rows of its levels).
  const uint64_t tiles = uint64_t{1} << (bits_ - k);
  std::vector<std::pair<uint64_t, uint64_t>> wanted_tiles;  // [first, end) per level that has any
  uint32_t levels = 0;
  for (int t = 0; t < k; ++t) {
    const uint64_t start = RunStart(z, t), length = static_cast<uint64_t>(RunLength(t)), piece = uint64_t{1} << (k - t - 1);
    if (!range.Meets(start, static_cast<int64_t>(length))) continue;
    levels |= uint32_t{1} << t;
    const uint64_t lo = range.begin > start ? (range.begin - start) / piece : 0;
    const uint64_t hi = (std::min(range.end - start, length) + piece - 1) / piece;
    wanted_tiles.emplace_back(lo, std::min(hi, tiles));
  }
  const auto wanted = [&](uint64_t tile) {
    for (const auto& [lo, hi] : wanted_tiles)
      if (tile >= lo && tile < hi) return true;
    return false;
  };
  // A tile's pieces, gathered from `src` (the tile's first sample) through `table`.
  const auto encode_tile = [&](uint64_t tile, const uint8_t* src, const uint32_t* table) {
    for (int t = 0; t < k; ++t) {
      const int64_t n = int64_t{1} << (k - t - 1);
      Emit(RunStart(z, t) + tile * static_cast<uint64_t>(n), n, range, sink, [&](uint8_t* out, int64_t m, int64_t first) {
        Gather(out, src, table + n + first, m, sb, kernel);
      });
    }
  };
  if (staged_) {
    // Slab by slab: its rows copied side by side (contiguous reads), then its tiles gathered from
    // the copy; the slabs' tiles are handed out in this order, not in hz order.
    thread_local std::vector<uint8_t> slab;
    slab.resize(static_cast<size_t>(slab_row_bytes_) * tile_rows_.size());
    const uint64_t slab_tiles = uint64_t{1} << slab_bits_.size();
    const auto tile_of = [&](uint64_t first, uint64_t c) {  // c's bits deposited at the slab's bits
      for (size_t i = 0; i < slab_bits_.size(); ++i)
        if ((c >> i) & 1) first |= uint64_t{1} << slab_bits_[i];
      return first;
    };
    for (uint64_t first = 0; first < tiles; ++first) {
      if (first & slab_mask_) continue;
      bool read = false;
      for (uint64_t c = 0; c < slab_tiles && !read; ++c) read = wanted(tile_of(first, c));
      if (!read) continue;
      StageAnyRows(at_origin + CoarseOffset(first << k) * sb, tile_rows_, row_levels_.data(), levels, slab_row_bytes_,
                   slab.data());
      for (uint64_t c = 0; c < slab_tiles; ++c) {
        const uint64_t tile = tile_of(first, c);
        if (wanted(tile)) encode_tile(tile, slab.data() + static_cast<int64_t>(c) * tile_row_bytes_, slab_table_.data());
      }
    }
  } else {
    ForEachTile(at_origin, false, wanted, [&](uint64_t tile, int64_t base) {
      if (wanted(tile)) encode_tile(tile, at_origin + base * sb, tile_table_.data());
    });
  }
  // The coarse levels: the tiles' roots, local Z (2j+1)·2^t for level t >= k.
  for (int t = k; t < bits_; ++t)
    Emit(RunStart(z, t), RunLength(t), range, sink, [&](uint8_t* out, int64_t m, int64_t first) {
      for (int64_t j = 0; j < m; ++j) {
        const uint64_t local = (2 * static_cast<uint64_t>(first + j) + 1) << t;
        std::memcpy(out + j * sb, at_origin + CoarseOffset(local) * sb, static_cast<size_t>(sb));
      }
    });
  Emit(RootHz(z), 1, range, sink, [&](uint8_t* out, int64_t, int64_t) { std::memcpy(out, at_origin, static_cast<size_t>(sb)); });
}

void SubtreeCoder::Decode(const Point& origin, uint8_t* at_origin, const Box& clip, const RunResolver& source) const {
  const int k = tile_bits_, n = bitmask_.dims();
  const int64_t sb = sample_bytes_;
  const SampleKernel kernel = ScatterKernel(sb);
  const uint64_t z = SubtreeZ(origin);
  Cursor root{RootHz(z), 1};
  root.Take(1, sb, source, [&](uint8_t* in, int64_t, int64_t) {
    if (clip.Contains(Point(n))) std::memcpy(at_origin, in, static_cast<size_t>(sb));
  });
  std::vector<Cursor> cursors = LevelCursors(z);
  for (int t = k; t < bits_; ++t)
    cursors[static_cast<size_t>(t)].Take(RunLength(t), sb, source, [&](uint8_t* in, int64_t m, int64_t first) {
      for (int64_t j = 0; j < m; ++j) {
        const uint64_t local = (2 * static_cast<uint64_t>(first + j) + 1) << t;
        if (clip.Contains(LocalPoint(local))) std::memcpy(at_origin + CoarseOffset(local) * sb, in + j * sb, static_cast<size_t>(sb));
      }
    });
  ForEachTile(at_origin, true, [](uint64_t) { return true; }, [&](uint64_t tile, int64_t base) {
    bool partial = false;
    const bool any = TileInside(tile, clip, &partial);
    uint8_t* dst = at_origin + base * sb;
    const Point tile_origin = partial ? LocalPoint(tile << k) : Point(n);
    for (int t = 0; t < k; ++t) {
      const int64_t count = int64_t{1} << (k - t - 1);
      const uint32_t* table = tile_table_.data() + count;
      cursors[static_cast<size_t>(t)].Take(count, sb, source, [&](uint8_t* in, int64_t m, int64_t first) {
        if (!any) return;
        if (!partial) return Scatter(dst, in, table + first, m, sb, kernel);
        for (int64_t j = 0; j < m; ++j) {  // a tile across the clip's border: sample by sample
          const uint16_t* local = tile_points_.data() + static_cast<size_t>(count + first + j) * static_cast<size_t>(n);
          Point p = tile_origin;
          for (int d = 0; d < n; ++d) p[d] += local[d];
          if (clip.Contains(p))
            std::memcpy(dst + static_cast<int64_t>(table[first + j]) * sb, in + j * sb, static_cast<size_t>(sb));
        }
      });
    }
  });
}

void SubtreeCoder::ForEachNeededRun(const Point& origin, const Box& clip,
                                    const std::function<void(uint64_t, int64_t)>& need) const {
  const int k = tile_bits_, n = bitmask_.dims();
  const uint64_t z = SubtreeZ(origin);
  // Pending piece per level, flushed when the next needed piece does not continue it.
  std::vector<std::pair<uint64_t, int64_t>> pending(static_cast<size_t>(bits_), {0, 0});
  const auto add = [&](int t, uint64_t hz, int64_t count) {
    auto& p = pending[static_cast<size_t>(t)];
    if (p.second > 0 && p.first + static_cast<uint64_t>(p.second) == hz) {
      p.second += count;
      return;
    }
    if (p.second > 0) need(p.first, p.second);
    p = {hz, count};
  };
  if (clip.Contains(Point(n))) need(RootHz(z), 1);
  for (int t = k; t < bits_; ++t)
    for (int64_t j = 0; j < RunLength(t); ++j)
      if (clip.Contains(LocalPoint((2 * static_cast<uint64_t>(j) + 1) << t))) add(t, RunStart(z, t) + static_cast<uint64_t>(j), 1);
  const uint64_t tiles = uint64_t{1} << (bits_ - k);
  for (uint64_t tile = 0; tile < tiles; ++tile) {
    bool partial = false;
    if (!TileInside(tile, clip, &partial)) continue;
    for (int t = 0; t < k; ++t) {
      const int64_t count = int64_t{1} << (k - t - 1);
      add(t, RunStart(z, t) + tile * static_cast<uint64_t>(count), count);
    }
  }
  for (const auto& [hz, count] : pending)
    if (count > 0) need(hz, count);
}

}  // namespace hzio
