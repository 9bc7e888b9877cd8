// Tests of hz/sample_kernels.h: for every sample size from 1 to 130 bytes (those with a kernel of
// their own and those without), gather and scatter, near and far, move exactly the samples the
// table names, whole, and touch nothing else; the table reaches past the far scatter's look-ahead
// and stops short of it.
#include "hzio/hz/sample_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace hzio {
namespace {

constexpr uint8_t kUntouched = 0xEE;

// A permutation of n indices into [0, 2n): every other slot is left out, in a scrambled order.
std::vector<uint32_t> Table(int64_t n) {
  std::vector<uint32_t> table(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) table[static_cast<size_t>(j)] = static_cast<uint32_t>(2 * ((j * 37) % n) + 1);
  return table;
}

// Sample k's bytes: distinct for every byte of every sample (mod 251, never kUntouched).
std::vector<uint8_t> Samples(int64_t n, int64_t sb) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n * sb));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 251);
  return bytes;
}

TEST(SampleKernels, ScatterPutsEverySampleWholeWhereTheTableSays) {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{300}}) {  // shorter and longer than the look-ahead
    const std::vector<uint32_t> table = Table(n);
    for (int64_t sb = 1; sb <= 130; ++sb) {
      const std::vector<uint8_t> in = Samples(n, sb);
      std::vector<uint8_t> expected(static_cast<size_t>(2 * n * sb), kUntouched);
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(expected.data() + table[static_cast<size_t>(j)] * sb, in.data() + j * sb, static_cast<size_t>(sb));
      for (const Reach reach : {Reach::kNear, Reach::kFar}) {
        std::vector<uint8_t> dst(expected.size(), kUntouched);
        Scatter(dst.data(), in.data(), table.data(), n, sb, ScatterKernel(sb, reach));
        ASSERT_EQ(dst, expected) << "n " << n << " sample bytes " << sb << (reach == Reach::kFar ? " far" : " near");
      }
    }
  }
}

TEST(SampleKernels, GatherTakesEverySampleWholeFromWhereTheTableSays) {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{300}}) {
    const std::vector<uint32_t> table = Table(n);
    for (int64_t sb = 1; sb <= 130; ++sb) {
      const std::vector<uint8_t> src = Samples(2 * n, sb);
      std::vector<uint8_t> expected(static_cast<size_t>(n * sb));
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(expected.data() + j * sb, src.data() + table[static_cast<size_t>(j)] * sb, static_cast<size_t>(sb));
      std::vector<uint8_t> out(static_cast<size_t>(n * sb + 1), kUntouched);
      Gather(out.data(), src.data(), table.data(), n, sb, GatherKernel(sb));
      ASSERT_EQ(out.back(), kUntouched) << "n " << n << " sample bytes " << sb << ": wrote past the samples";
      out.pop_back();
      ASSERT_EQ(out, expected) << "n " << n << " sample bytes " << sb;
    }
  }
}

// The group scatter puts sample from[k] of each group where its group's first destination plus
// to[k] says, whole, for every size that has a kernel, and writes nothing between the groups.
TEST(SampleKernels, GroupScatterPutsEachGroupWhereItsFirstDestinationSays) {
  const int64_t group = 4, n = 12;
  const std::vector<uint32_t> to{0, 3, 5, 6};
  const std::vector<uint16_t> from{2, 0, 3, 1};
  // Groups at samples 0, 4 and 8 go from destinations 40, 10 and 20 on; only those entries of the
  // table are read.
  const uint32_t first[] = {40, 10, 20};
  std::vector<uint32_t> table(static_cast<size_t>(n), 0);
  for (int64_t g = 0; g < n / group; ++g) table[static_cast<size_t>(g * group)] = first[g];
  for (int64_t sb = 1; sb <= 130; ++sb) {
    const GroupScatterKernel kernel = GroupKernel(sb);
    if (!kernel) continue;
    const std::vector<uint8_t> in = Samples(n, sb);
    std::vector<uint8_t> expected(static_cast<size_t>(48 * sb), kUntouched), dst = expected;
    for (int64_t f = 0; f < n; f += group)
      for (int64_t k = 0; k < group; ++k)
        std::memcpy(expected.data() + (first[f / group] + to[static_cast<size_t>(k)]) * sb,
                    in.data() + (f + from[static_cast<size_t>(k)]) * sb, static_cast<size_t>(sb));
    kernel(dst.data(), in.data(), table.data(), n, group, to.data(), from.data());
    ASSERT_EQ(dst, expected) << "sample bytes " << sb;
  }
}

TEST(SampleKernels, TheUsualSampleSizesHaveKernelsOfTheirOwn) {
  for (const int64_t sb : {1, 2, 4, 8, 12, 16, 24, 32, 88}) {
    EXPECT_NE(GatherKernel(sb), nullptr) << sb;
    EXPECT_NE(ScatterKernel(sb, Reach::kNear), nullptr) << sb;
    EXPECT_NE(ScatterKernel(sb, Reach::kFar), nullptr) << sb;
    EXPECT_NE(GroupKernel(sb), nullptr) << sb;
  }
  EXPECT_EQ(GatherKernel(44), nullptr);  // float32[11]: the generic word loop
  EXPECT_EQ(GroupKernel(44), nullptr);   // left to the caller (BlockScatter: sample by sample)
  EXPECT_EQ(ScatterKernel(0), nullptr);
}

}  // namespace
}  // namespace hzio
