#include "hzio/access/synthetic.h"

#include <cstring>
#include <vector>

#include "hzio/util/error.h"

namespace hzio {

namespace {

// Writes the value of component c at key s into `out` (one component).
void StoreComponent(const DType& dtype, int field, int64_t time, int64_t s, int c, uint8_t* out) {
  const int bytes = dtype.bits() / 8;
  if (dtype.kind() == DType::Kind::kFloat) {
    const double v = static_cast<double>(s) + 0.125 * c + 0.0625 * field + 1e9 * static_cast<double>(time);
    if (dtype.bits() == 64) {
      std::memcpy(out, &v, 8);
    } else {
      const float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
    }
    return;
  }
  // Unsigned arithmetic is modulo 2^64; truncating to b bits (little-endian) gives mod 2^b.
  const uint64_t v = static_cast<uint64_t>(s) + 7u * static_cast<uint64_t>(c) +
                     11u * static_cast<uint64_t>(field) + 13u * static_cast<uint64_t>(time);
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(v >> (8 * i));
  std::memcpy(out, le, static_cast<size_t>(bytes));
}

void CheckSupported(const DType& dtype) {
  const bool ok = dtype.kind() == DType::Kind::kFloat ? (dtype.bits() == 32 || dtype.bits() == 64)
                                                      : (dtype.bits() == 8 || dtype.bits() == 16 ||
                                                         dtype.bits() == 32 || dtype.bits() == 64);
  Check(ok, ErrorCode::kUnsupported, "synthetic data (design.md §4) does not cover dtype " + dtype.ToString());
}

template <class Visit>
void ForEachSample(const Grid& grid, Visit&& visit) {
  const int n = grid.dims();
  Point k(n);
  const int64_t total = grid.NumSamples();
  for (int64_t i = 0; i < total; ++i) {
    int64_t s = 0, scale = 1;
    for (int d = 0; d < n && d < 3; ++d, scale *= 1000) s += (grid.origin[d] + k[d] * grid.stride[d]) * scale;
    visit(i, s);
    for (int d = 0; d < n; ++d) {
      if (++k[d] < grid.count[d]) break;
      k[d] = 0;
    }
  }
}

}  // namespace

Grid DenseGrid(const Box& box) { return Grid{box.p1, Point(box.dims(), 1), box.Size()}; }

void FillSynthetic(const DType& dtype, int field, int64_t time, const Grid& grid, uint8_t* out) {
  CheckSupported(dtype);
  const int64_t comp_bytes = dtype.bits() / 8, sample = dtype.SampleBytes();
  ForEachSample(grid, [&](int64_t i, int64_t s) {
    for (int c = 0; c < dtype.components(); ++c) StoreComponent(dtype, field, time, s, c, out + i * sample + c * comp_bytes);
  });
}

int64_t FirstSyntheticMismatch(const DType& dtype, int field, int64_t time, const Grid& grid,
                               const uint8_t* data) {
  CheckSupported(dtype);
  const int64_t comp_bytes = dtype.bits() / 8, sample = dtype.SampleBytes();
  int64_t first = -1;
  std::vector<uint8_t> expect(static_cast<size_t>(sample));
  ForEachSample(grid, [&](int64_t i, int64_t s) {
    if (first >= 0) return;
    for (int c = 0; c < dtype.components(); ++c) StoreComponent(dtype, field, time, s, c, expect.data() + c * comp_bytes);
    if (std::memcmp(expect.data(), data + i * sample, static_cast<size_t>(sample)) != 0) first = i;
  });
  return first;
}

}  // namespace hzio
