// CopySamples (access/sample_copy.h): streamed rows (stream = true, for results beyond the
// caches) give exactly the bytes of cached stores, for contiguous and strided rows, every sample
// size, and destinations at every offset.
#include "hzio/access/sample_copy.h"

#include <gtest/gtest.h>

#include <vector>

namespace hzio {
namespace {

TEST(SampleCopy, StreamedRowsEqualCachedStores) {
  const Point src_count{24, 5, 3};
  const Point dst_count{70, 11, 4};
  for (int64_t sb : {1, 2, 4, 8, 12}) {
    std::vector<uint8_t> src(static_cast<size_t>(src_count.Product() * sb));
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 13 + 1);
    for (int64_t dst_step : {1, 2}) {
      for (int64_t dst_first = 0; dst_first < 5; ++dst_first) {
        AxisCopy plan[kMaxDims];
        plan[0] = AxisCopy{1, 1, dst_first, dst_step, 20};
        plan[1] = AxisCopy{0, 1, 3, 2, 4};
        plan[2] = AxisCopy{1, 1, 0, 1, 2};
        for (int d = 3; d < kMaxDims; ++d) plan[d] = AxisCopy{0, 1, 0, 1, 1};
        std::vector<uint8_t> cached(static_cast<size_t>(dst_count.Product() * sb), 0xAB), streamed = cached;
        const SampleSide from{src.data(), src_count, nullptr};
        CopySamples(plan, 3, from, SampleSide{cached.data(), dst_count, nullptr}, sb, false);
        CopySamples(plan, 3, from, SampleSide{streamed.data(), dst_count, nullptr}, sb, true);
        ASSERT_EQ(streamed, cached) << "sample bytes " << sb << " dst step " << dst_step << " first " << dst_first;
        // And the copy moved what the plan says: sample (x, y, z) of the source lands at
        // (dst_first + x' * dst_step, 3 + 2 y', z') for x = 1 + x', y = y', z = 1 + z'.
        const int64_t x = 7, y = 2, z = 1;
        const int64_t s = ((1 + z) * src_count[1] + y) * src_count[0] + 1 + x;
        const int64_t d = (z * dst_count[1] + 3 + 2 * y) * dst_count[0] + dst_first + x * dst_step;
        for (int64_t b = 0; b < sb; ++b)
          ASSERT_EQ(cached[static_cast<size_t>(d * sb + b)], src[static_cast<size_t>(s * sb + b)]);
      }
    }
  }
}

TEST(SampleCopy, FillRepeatedWritesEverySampleAndNothingBeyond) {
  for (size_t sb : {1, 3, 4, 12}) {
    const std::vector<uint8_t> value = {9, 8, 7, 6, 5, 4, 3, 2, 1, 10, 11, 12};
    for (size_t samples : {0, 1, 2, 5, 64, 1000}) {
      std::vector<uint8_t> out(samples * sb + 7, 0xEE);
      FillRepeated(out.data(), samples * sb, value.data(), sb);
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], i < samples * sb ? value[i % sb] : 0xEE) << "byte " << i << " of " << samples << " x " << sb;
    }
  }
}

}  // namespace
}  // namespace hzio
