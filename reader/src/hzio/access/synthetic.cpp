#include "hzio/access/synthetic.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "hzio/util/error.h"

namespace hzio {

namespace {

// The value of float component c at key s (design.md §4), before rounding to the dtype.
double FloatValue(int field, int64_t time, int64_t s, int c) {
  return static_cast<double>(s) + 0.125 * c + 0.0625 * field + 1e9 * static_cast<double>(time);
}

// Writes the value of integer component c at key s into `out` (one component of b bits).
void StoreInteger(const DType& dtype, int field, int64_t time, int64_t s, int c, uint8_t* out) {
  // Unsigned arithmetic is modulo 2^64; truncating to b bits (little-endian) gives mod 2^b.
  const uint64_t v = static_cast<uint64_t>(s) + 7u * static_cast<uint64_t>(c) +
                     11u * static_cast<uint64_t>(field) + 13u * static_cast<uint64_t>(time);
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
  std::memcpy(out, le, static_cast<size_t>(dtype.bits() / 8));
}

void CheckSupported(const DType& dtype) {
  const bool ok = dtype.kind() == DType::Kind::kFloat ? (dtype.bits() == 32 || dtype.bits() == 64)
                                                      : (dtype.bits() == 8 || dtype.bits() == 16 ||
                                                         dtype.bits() == 32 || dtype.bits() == 64);
  Check(ok, ErrorCode::kUnsupported, "synthetic data (design.md §4) does not cover dtype " + dtype.ToString());
}

// Rows are visited in pieces of at most this many samples (a verifier's expected values fit in a
// small buffer, whatever the grid).
constexpr int64_t kPieceSamples = 4096;

// Calls visit(i, s, step, n) for runs of n samples along axis 0: sample indices i.., keys s,
// s + step, ... (design.md §4: s = x + 1000 y + 10^6 z). Per run, not per sample: the verifier of a
// 4 GiB restart took 15 ns a sample when every sample walked the axes.
template <class Visit>
void ForEachRun(const Grid& grid, Visit&& visit) {
  const int n = grid.dims();
  const int64_t row = grid.count[0], total = grid.NumSamples();
  if (total <= 0) return;
  Point k(n);  // k[0] stays 0: runs start at the row's first sample
  for (int64_t first = 0; first < total; first += row) {
    int64_t s = 0, scale = 1;
    for (int d = 0; d < n && d < 3; ++d, scale *= 1000) s += (grid.origin[d] + k[d] * grid.stride[d]) * scale;
    for (int64_t at = 0; at < row; at += kPieceSamples)
      visit(first + at, s + at * grid.stride[0], grid.stride[0], std::min(kPieceSamples, row - at));
    for (int d = 1; d < n; ++d) {
      if (++k[d] < grid.count[d]) break;
      k[d] = 0;
    }
  }
}

// Writes the values of n samples with keys s, s + step, ... (components contiguous) into `out`.
void StoreRun(const DType& dtype, int field, int64_t time, int64_t s, int64_t step, int64_t n, uint8_t* out) {
  const int comps = dtype.components();
  if (dtype.kind() == DType::Kind::kFloat) {
    // The float cases decided here, once per run (per component they cost 1.7x the run's time).
    for (int64_t i = 0; i < n; ++i, s += step)
      for (int c = 0; c < comps; ++c) {
        const double v = FloatValue(field, time, s, c);
        if (dtype.bits() == 64) {
          std::memcpy(out, &v, 8);
          out += 8;
        } else {
          const float f = static_cast<float>(v);
          std::memcpy(out, &f, 4);
          out += 4;
        }
      }
    return;
  }
  const int64_t comp_bytes = dtype.bits() / 8;
  for (int64_t i = 0; i < n; ++i, s += step)
    for (int c = 0; c < comps; ++c, out += comp_bytes) StoreInteger(dtype, field, time, s, c, out);
}

}  // namespace

Grid DenseGrid(const Box& box) { return Grid{box.p1, Point(box.dims(), 1), box.Size()}; }

void FillSynthetic(const DType& dtype, int field, int64_t time, const Grid& grid, uint8_t* out) {
  CheckSupported(dtype);
  const int64_t sample = dtype.SampleBytes();
  ForEachRun(grid, [&](int64_t i, int64_t s, int64_t step, int64_t n) {
    StoreRun(dtype, field, time, s, step, n, out + i * sample);
  });
}

int64_t FirstSyntheticMismatch(const DType& dtype, int field, int64_t time, const Grid& grid,
                               const uint8_t* data) {
  CheckSupported(dtype);
  const int64_t sample = dtype.SampleBytes();
  int64_t first = -1;
  std::vector<uint8_t> expect(static_cast<size_t>(std::min(kPieceSamples, std::max<int64_t>(grid.NumSamples(), 1)) * sample));
  ForEachRun(grid, [&](int64_t i, int64_t s, int64_t step, int64_t n) {
    if (first >= 0) return;
    StoreRun(dtype, field, time, s, step, n, expect.data());
    const uint8_t* got = data + i * sample;
    if (std::memcmp(expect.data(), got, static_cast<size_t>(n * sample)) == 0) return;
    for (int64_t j = 0; first < 0; ++j)
      if (std::memcmp(expect.data() + j * sample, got + j * sample, static_cast<size_t>(sample)) != 0) first = i + j;
  });
  return first;
}

}  // namespace hzio
