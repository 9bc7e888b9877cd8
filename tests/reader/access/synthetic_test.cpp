// The synthetic data of design.md §4 (access/synthetic.h): FillSynthetic writes the formula's
// values, computed here sample by sample, for every dtype kind it covers, on strided grids with an
// origin and on rows longer than the pieces it works in; FirstSyntheticMismatch finds the first
// differing sample wherever it lies, and -1 when there is none.
#include "hzio/access/synthetic.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace hzio {
namespace {

// The formula of design.md §4 for one component, as bytes (little-endian for integers).
std::vector<uint8_t> Expected(const DType& dtype, int field, int64_t time, int64_t s, int c) {
  std::vector<uint8_t> out(static_cast<size_t>(dtype.bits() / 8));
  if (dtype.kind() == DType::Kind::kFloat) {
    const double v = static_cast<double>(s) + 0.125 * c + 0.0625 * field + 1e9 * static_cast<double>(time);
    const float f = static_cast<float>(v);
    if (dtype.bits() == 64) std::memcpy(out.data(), &v, 8);
    else std::memcpy(out.data(), &f, 4);
    return out;
  }
  const uint64_t v = static_cast<uint64_t>(s) + 7u * static_cast<uint64_t>(c) + 11u * static_cast<uint64_t>(field) +
                     13u * static_cast<uint64_t>(time);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
  return out;
}

const Grid kGrids[] = {
    Grid{Point{3, 5, 7}, Point{2, 1, 3}, Point{9, 4, 3}},  // strided, with an origin
    Grid{Point{1, 2}, Point{3, 1}, Point{5000, 2}},      // rows longer than a piece
    Grid{Point{4}, Point{1}, Point{9000}},                 // one long row
};

TEST(Synthetic, FillWritesTheFormulaAtEveryGridPoint) {
  for (const std::string spec : {"float64[3]", "float32", "int16", "uint8", "int64[2]", "uint32"}) {
    const DType dtype = DType::Parse(spec);
    for (const Grid& grid : kGrids) {
      std::vector<uint8_t> data(static_cast<size_t>(dtype.BytesFor(grid.NumSamples())));
      FillSynthetic(dtype, 3, 2, grid, data.data());
      const int n = grid.dims();
      Point k(n);
      int64_t wrong = 0;
      for (int64_t i = 0; i < grid.NumSamples(); ++i) {
        int64_t s = 0, scale = 1;
        for (int d = 0; d < n; ++d, scale *= 1000) s += (grid.origin[d] + k[d] * grid.stride[d]) * scale;
        for (int c = 0; c < dtype.components(); ++c) {
          const std::vector<uint8_t> want = Expected(dtype, 3, 2, s, c);
          wrong += std::memcmp(want.data(), data.data() + i * dtype.SampleBytes() + c * (dtype.bits() / 8), want.size()) != 0;
        }
        for (int d = 0; d < n; ++d) {
          if (++k[d] < grid.count[d]) break;
          k[d] = 0;
        }
      }
      EXPECT_EQ(wrong, 0) << spec << " on a grid of " << grid.count.ToString();
      EXPECT_EQ(FirstSyntheticMismatch(dtype, 3, 2, grid, data.data()), -1) << spec;
      EXPECT_NE(FirstSyntheticMismatch(dtype, 3, 3, grid, data.data()), -1) << spec << ": another timestep differs";
    }
  }
}

TEST(Synthetic, MismatchNamesTheFirstDifferingSample) {
  const DType dtype = DType::Parse("float64[3]");
  for (const Grid& grid : kGrids) {
    const int64_t total = grid.NumSamples();
    std::vector<uint8_t> data(static_cast<size_t>(dtype.BytesFor(total)));
    FillSynthetic(dtype, 1, 0, grid, data.data());
    for (const int64_t at : {int64_t{0}, total / 2 + 1, total - 1}) {
      std::vector<uint8_t> bad = data;
      bad[static_cast<size_t>(at * dtype.SampleBytes() + 17)] ^= 1;  // a byte of the third component
      EXPECT_EQ(FirstSyntheticMismatch(dtype, 1, 0, grid, bad.data()), at) << grid.count.ToString();
      bad[static_cast<size_t>((total - 1) * dtype.SampleBytes())] ^= 1;  // and the last sample
      EXPECT_EQ(FirstSyntheticMismatch(dtype, 1, 0, grid, bad.data()), at) << grid.count.ToString();
    }
  }
}

TEST(Synthetic, DtypesOutsideTheFormulaAreRefused) {
  std::vector<uint8_t> data(64);
  const Grid grid{Point{0}, Point{1}, Point{4}};
  EXPECT_HZIO_ERROR(FillSynthetic(DType::Parse("int12"), 0, 0, grid, data.data()), ErrorCode::kUnsupported, "int12");
  EXPECT_HZIO_ERROR(FirstSyntheticMismatch(DType::Parse("uint1"), 0, 0, grid, data.data()), ErrorCode::kUnsupported,
                    "int1");
}

}  // namespace
}  // namespace hzio
