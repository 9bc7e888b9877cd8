// idx-format.md §4.8: hzio's writer reproduces OpenVisus's files byte for byte, and its reader
// returns the worked-example values at every level.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"

namespace hzio {
namespace {

using testing::GoldenPath;
using testing::ReadBytes;

IdxHeader TinyHeader(bool hz) {
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{4, 4}};
  Field f = Field::Parse("v uint8", 6);
  f.hz_layout = hz;
  f.min = {0};
  f.max = {0};
  h.fields.push_back(f);
  h.bits_per_block = 2;
  h.blocks_per_file = 2;
  h.filename_template = hz ? "./hz/%04x.bin" : "./rm/%04x.bin";
  return h;
}

std::vector<uint8_t> TinyData() {
  std::vector<uint8_t> a(16);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) a[static_cast<size_t>(y * 4 + x)] = static_cast<uint8_t>(10 * y + x);
  return a;
}

TEST(WorkedExample, WriterMatchesOpenVisusByteForByte) {
  for (bool hz : {true, false}) {
    testing::TempDir dir;
    const std::string name = hz ? "hz" : "rm";
    DatasetWriter w(dir.File(name + ".idx"), TinyHeader(hz));
    std::vector<uint8_t> data = TinyData();
    w.Write(0, 0, Box{Point{0, 0}, Point{4, 4}}, data.data());
    w.Finish();
    EXPECT_EQ(testing::ReadText(dir.File(name + ".idx")), testing::ReadText(GoldenPath("tiny/" + name + ".idx")));
    for (const char* file : {"0000.bin", "0002.bin"})
      EXPECT_EQ(ReadBytes(dir.File(name + "/" + file)), ReadBytes(GoldenPath("tiny/" + name + "/" + file)))
          << name << "/" << file;
  }
}

TEST(WorkedExample, ReadsEveryLevelOfTheGoldenFiles) {
  for (const char* idx : {"tiny/hz.idx", "tiny/rm.idx"}) {
    auto ds = OpenDataset(GoldenPath(idx));
    // Level H returns the cumulative grid of stride D_H (§3.5): values 10*y + x at those points.
    const Point strides[] = {Point{4, 4}, Point{2, 4}, Point{2, 2}, Point{1, 2}, Point{1, 1}};
    for (int h = 0; h <= 4; ++h) {
      BoxQuery q;
      q.level = h;
      BoxResult r = ds->Read(q);
      ASSERT_EQ(r.grid.stride, strides[h]);
      for (int64_t iy = 0; iy < r.grid.count[1]; ++iy)
        for (int64_t ix = 0; ix < r.grid.count[0]; ++ix) {
          const int64_t x = ix * strides[h][0], y = iy * strides[h][1];
          EXPECT_EQ(r.data.data()[iy * r.grid.count[0] + ix], 10 * y + x) << idx << " level " << h;
        }
    }
    // A sub-box with a non-zero origin at full resolution.
    BoxQuery q;
    q.box = Box{Point{1, 2}, Point{4, 4}};
    BoxResult r = ds->Read(q);
    EXPECT_EQ(r.grid.count, (Point{3, 2}));
    EXPECT_EQ(r.data.data()[0], 21);
    EXPECT_EQ(r.data.data()[5], 33);
    // Only level 3's own samples: (1,0) (3,0) (1,2) (3,2).
    BoxQuery only;
    only.level = 3;
    only.only_level = true;
    BoxResult o = ds->Read(only);
    EXPECT_EQ(o.grid.count, (Point{2, 2}));
    EXPECT_EQ(std::vector<uint8_t>(o.data.data(), o.data.data() + 4), (std::vector<uint8_t>{1, 3, 21, 23}));
  }
}

}  // namespace
}  // namespace hzio
