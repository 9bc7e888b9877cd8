#include "hzio/access/sample_copy.h"

#include <algorithm>
#include <cstring>

#include "hzio/util/stream_copy.h"

namespace hzio {

namespace {

struct Walk {
  int64_t src_stride[kMaxDims], dst_stride[kMaxDims];
};

Walk Strides(int dims, const Point& src_count, const Point& dst_count) {
  Walk w{};
  int64_t s = 1, d = 1;
  for (int a = 0; a < kMaxDims; ++a) {
    w.src_stride[a] = s;
    w.dst_stride[a] = d;
    if (a < dims) {
      s *= src_count[a];
      d *= dst_count[a];
    }
  }
  return w;
}

// Calls row(src_linear_start, dst_linear_start, next_dst_linear_start) for every row of the plan
// (axes 1..dims-1), in order; next is -1 for the last row. Knowing the next row lets a copy
// prefetch its destination lines while it moves the current one.
template <typename RowFn>
void ForEachRow(const AxisCopy (&plan)[kMaxDims], int dims, const Walk& w, RowFn&& row) {
  int64_t idx[kMaxDims] = {0, 0, 0, 0, 0};
  int64_t prev_s = -1, prev_d = -1;
  for (;;) {
    int64_t s = plan[0].src_first * w.src_stride[0], d = plan[0].dst_first * w.dst_stride[0];
    for (int a = 1; a < dims; ++a) {
      s += (plan[a].src_first + idx[a] * plan[a].src_step) * w.src_stride[a];
      d += (plan[a].dst_first + idx[a] * plan[a].dst_step) * w.dst_stride[a];
    }
    if (prev_s >= 0) row(prev_s, prev_d, d);
    prev_s = s;
    prev_d = d;
    int a = 1;
    for (; a < dims; ++a) {
      if (++idx[a] < plan[a].count) break;
      idx[a] = 0;
    }
    if (a >= dims) break;
  }
  row(prev_s, prev_d, int64_t{-1});
}

// Asks for the lines of a destination row before it is written: rows of different levels
// interleave sample by sample, so a row's lines are rarely cached, and a store that misses
// stalls; prefetching the next row overlaps those misses with the current row's stores.
inline void PrefetchRow(uint8_t* first, int64_t bytes) {
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(first + b, 1, 3);
}

template <int64_t kBytes>
void CopyTyped(const AxisCopy (&plan)[kMaxDims], int dims, const SampleSide& src,
               const SampleSide& dst, int64_t bytes, bool stream) {
  const int64_t sb = kBytes > 0 ? kBytes : bytes;
  const Walk w = Strides(dims, src.count, dst.count);
  const int64_t n = plan[0].count, ss = plan[0].src_step, ds = plan[0].dst_step;
  const uint8_t* sp = src.data;
  uint8_t* dp = dst.data;
  const uint32_t* smap = src.index_map;
  const uint32_t* dmap = dst.index_map;
  const int64_t span = ((n - 1) * ds + 1) * sb;  // bytes of a destination row without index map
  // One loop per index-map case, so the per-sample loop carries no branches.
  if (!smap && !dmap) {
    if (ss == 1 && ds == 1) {
      if (stream) {
        ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t) {
          StreamCopy(dp + d * sb, sp + s * sb, static_cast<size_t>(n * sb));
        });
        StreamFence();
      } else {
        ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t) {
          std::memcpy(dp + d * sb, sp + s * sb, static_cast<size_t>(n * sb));
        });
      }
      return;
    }
    ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t next) {
      if (next >= 0) PrefetchRow(dp + next * sb, span);
      const uint8_t* from = sp + s * sb;
      uint8_t* to = dp + d * sb;
      for (int64_t m = 0; m < n; ++m, from += ss * sb, to += ds * sb) std::memcpy(to, from, static_cast<size_t>(sb));
    });
  } else if (smap && !dmap) {
    ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t next) {
      if (next >= 0) PrefetchRow(dp + next * sb, span);
      uint8_t* to = dp + d * sb;
      for (int64_t m = 0; m < n; ++m, s += ss, to += ds * sb) std::memcpy(to, sp + smap[s] * sb, static_cast<size_t>(sb));
    });
  } else if (!smap && dmap) {
    ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t) {
      const uint8_t* from = sp + s * sb;
      for (int64_t m = 0; m < n; ++m, from += ss * sb, d += ds) std::memcpy(dp + dmap[d] * sb, from, static_cast<size_t>(sb));
    });
  } else {
    ForEachRow(plan, dims, w, [&](int64_t s, int64_t d, int64_t) {
      for (int64_t m = 0; m < n; ++m, s += ss, d += ds)
        std::memcpy(dp + dmap[d] * sb, sp + smap[s] * sb, static_cast<size_t>(sb));
    });
  }
}

}  // namespace

void CopySamples(const AxisCopy (&plan)[kMaxDims], int dims, const SampleSide& src,
                 const SampleSide& dst, int64_t sample_bytes, bool stream) {
  switch (sample_bytes) {
    case 1: return CopyTyped<1>(plan, dims, src, dst, sample_bytes, stream);
    case 2: return CopyTyped<2>(plan, dims, src, dst, sample_bytes, stream);
    case 4: return CopyTyped<4>(plan, dims, src, dst, sample_bytes, stream);
    case 8: return CopyTyped<8>(plan, dims, src, dst, sample_bytes, stream);
    case 3: return CopyTyped<3>(plan, dims, src, dst, sample_bytes, stream);
    case 12: return CopyTyped<12>(plan, dims, src, dst, sample_bytes, stream);
    case 16: return CopyTyped<16>(plan, dims, src, dst, sample_bytes, stream);
    case 24: return CopyTyped<24>(plan, dims, src, dst, sample_bytes, stream);
    default: return CopyTyped<0>(plan, dims, src, dst, sample_bytes, stream);
  }
}

void FillSamples(const AxisCopy (&plan)[kMaxDims], int dims, const SampleSide& dst,
                 const uint8_t* value, int64_t sample_bytes) {
  const Walk w = Strides(dims, dst.count, dst.count);
  const int64_t n = plan[0].count, ds = plan[0].dst_step;
  ForEachRow(plan, dims, w, [&](int64_t, int64_t d, int64_t) {
    for (int64_t m = 0; m < n; ++m, d += ds) {
      const int64_t di = dst.index_map ? dst.index_map[d] : d;
      std::memcpy(dst.data + di * sample_bytes, value, static_cast<size_t>(sample_bytes));
    }
  });
}

void FillRepeated(uint8_t* data, size_t bytes, const uint8_t* value, size_t sample_bytes) {
  if (bytes == 0) return;
  std::memcpy(data, value, std::min(sample_bytes, bytes));
  for (size_t done = sample_bytes; done < bytes; done *= 2) std::memcpy(data + done, data, std::min(done, bytes - done));
}

int64_t PlannedSamples(const AxisCopy (&plan)[kMaxDims], int dims) {
  int64_t n = 1;
  for (int d = 0; d < dims; ++d) n *= plan[d].count;
  return n;
}

}  // namespace hzio
