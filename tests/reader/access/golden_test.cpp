// The datasets OpenVisus 2.2.149 wrote (shared/testdata/idx-golden) decode to their sources.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/access/dataset.h"

namespace hzio {
namespace {

using testing::GoldenPath;

void ExpectFullReadEquals(const std::string& idx, const std::string& raw, const Point& count) {
  auto ds = OpenDataset(GoldenPath(idx));
  BoxResult r = ds->Read(BoxQuery{});
  ASSERT_EQ(r.grid.count, count) << idx;
  std::vector<uint8_t> want = testing::ReadBytes(GoldenPath(raw));
  ASSERT_EQ(static_cast<int64_t>(want.size()), r.data.ByteSize()) << idx;
  EXPECT_TRUE(std::equal(want.begin(), want.end(), r.data.data())) << idx;
}

TEST(Golden, DecodesEveryOpenVisusDataset) {
  ExpectFullReadEquals("f32/visus.idx", "f32_source_float32_z4_y8_x16.raw", Point{16, 8, 4});
  ExpectFullReadEquals("lz/visus.idx", "lz_source_int16_y20_x30.raw", Point{30, 20});
  ExpectFullReadEquals("rgb_hz_raw/visus.idx", "rgb_source_uint8x3_y60_x100.raw", Point{100, 60});
  ExpectFullReadEquals("rgb_hz_zip/visus.idx", "rgb_source_uint8x3_y60_x100.raw", Point{100, 60});
}

// Coarse levels of the RGB dataset equal the source sampled on the §3.4 grid.
TEST(Golden, CoarseLevelsSampleTheSource) {
  std::vector<uint8_t> src = testing::ReadBytes(GoldenPath("rgb_source_uint8x3_y60_x100.raw"));
  for (const char* idx : {"rgb_hz_raw/visus.idx", "rgb_hz_zip/visus.idx"}) {
    auto ds = OpenDataset(GoldenPath(idx));
    int levels_read = 0;
    for (int h = 0; h <= ds->header().maxh(); ++h) {
      BoxQuery q;
      q.level = h;
      q.box = Box{Point{10, 5}, Point{51, 31}};
      // §3.4: the result lattice of levels 0..h has stride CumulativeStride(h) from 0; a box with
      // no multiple of it on some axis holds no sample, and the read says so.
      const Point stride = ds->header().bitmask.CumulativeStride(h);
      bool empty = false;
      for (int d = 0; d < 2; ++d)
        empty = empty || (q.box->p1[d] + stride[d] - 1) / stride[d] * stride[d] >= q.box->p2[d];
      if (empty) {
        EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kOutOfRange, "holds no sample at level " + std::to_string(h));
        continue;
      }
      const BoxResult r = ds->Read(q);
      ++levels_read;
      for (int64_t iy = 0; iy < r.grid.count[1]; ++iy)
        for (int64_t ix = 0; ix < r.grid.count[0]; ++ix)
          for (int c = 0; c < 3; ++c) {
            const int64_t x = r.grid.origin[0] + ix * r.grid.stride[0], y = r.grid.origin[1] + iy * r.grid.stride[1];
            ASSERT_EQ(r.data.data()[(iy * r.grid.count[0] + ix) * 3 + c], src[static_cast<size_t>((y * 100 + x) * 3 + c)])
                << idx << " level " << h;
          }
    }
    EXPECT_GE(levels_read, 8) << idx;
  }
}

}  // namespace
}  // namespace hzio
