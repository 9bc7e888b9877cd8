// The datasets OpenVisus 2.2.149 wrote (shared/testdata/idx-golden) decode to their sources.
#include <gtest/gtest.h>

#include "../test_util.h"
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
    for (int h = 0; h <= ds->header().maxh(); ++h) {
      BoxQuery q;
      q.level = h;
      q.box = Box{Point{10, 5}, Point{51, 31}};
      BoxResult r;
      try {
        r = ds->Read(q);
      } catch (const Error&) {
        continue;  // no lattice point of this level inside the box
      }
      for (int64_t iy = 0; iy < r.grid.count[1]; ++iy)
        for (int64_t ix = 0; ix < r.grid.count[0]; ++ix)
          for (int c = 0; c < 3; ++c) {
            const int64_t x = r.grid.origin[0] + ix * r.grid.stride[0], y = r.grid.origin[1] + iy * r.grid.stride[1];
            ASSERT_EQ(r.data.data()[(iy * r.grid.count[0] + ix) * 3 + c], src[static_cast<size_t>((y * 100 + x) * 3 + c)])
                << idx << " level " << h;
          }
    }
  }
}

}  // namespace
}  // namespace hzio
