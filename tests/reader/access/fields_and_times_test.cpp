// Several fields (incl. a vector dtype) and timesteps, written by separate writer sessions into one
// dataset, as `hzio create` + `hzio convert` do (idx-format.md §6): every field/time reads back.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/access/dataset_writer.h"

namespace hzio {
namespace {

TEST(FieldsAndTimes, SeparateSessionsShareFilesAndReadBack) {
  testing::TempDir dir;
  const std::string idx = dir.File("multi.idx");
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{13, 9, 6}};
  h.fields.push_back(Field::Parse("temperature float32 default_compression(zip)", 6));
  h.fields.push_back(Field::Parse("color uint8[3] default_layout(hzorder) default_compression(lz4)", 6));
  h.time = TimeSpec::Range(0, 2, "time_%02d/");
  h.bits_per_block = 5;
  h.blocks_per_file = 4;
  CreateEmptyDataset(idx, h);
  const int64_t n = 13 * 9 * 6;
  auto temperature = [](int64_t i, int64_t t) { return static_cast<float>(i) + 0.5f + 1000.0f * static_cast<float>(t); };
  auto color = [](int64_t i, int64_t t, int c) { return static_cast<uint8_t>((i * 3 + c + 17 * t) & 255); };
  for (int64_t t = 0; t < 3; ++t) {
    for (int field = 0; field < 2; ++field) {
      WriterOptions options;
      options.allow_existing = true;
      DatasetWriter w(idx, h, options);
      if (field == 0) {
        std::vector<float> a(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) a[static_cast<size_t>(i)] = temperature(i, t);
        w.Write(0, t, h.box, reinterpret_cast<const uint8_t*>(a.data()));
      } else {
        std::vector<uint8_t> a(static_cast<size_t>(n * 3));
        for (int64_t i = 0; i < n; ++i)
          for (int c = 0; c < 3; ++c) a[static_cast<size_t>(i * 3 + c)] = color(i, t, c);
        w.Write(1, t, h.box, a.data());
      }
      w.Finish();
    }
  }
  auto ds = OpenDataset(idx);
  // Writing into timesteps the header already declared moved the data to newer generations of
  // the data directory; the last one holds every file, the older ones are gone.
  EXPECT_EQ(DataDirectoryOf(ds->header(), idx).path, dir.File("multi.g7"));
  EXPECT_TRUE(std::filesystem::exists(dir.File("multi.g7/time_02/0000.bin")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("multi")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("multi.g6")));
  for (int64_t t = 0; t < 3; ++t) {
    BoxQuery q;
    q.time = t;
    q.field = "temperature";
    BoxResult r = ds->Read(q);
    const float* f = reinterpret_cast<const float*>(r.data.data());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(f[i], temperature(i, t)) << "t " << t << " i " << i;
    q.field = "color";
    BoxResult c = ds->Read(q);
    ASSERT_EQ(c.data.NumpyShape(), (std::vector<int64_t>{6, 9, 13, 3}));
    for (int64_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) ASSERT_EQ(c.data.data()[i * 3 + k], color(i, t, k)) << "t " << t;
  }
  // The second session's blocks were appended next to the first's: both fields share the files.
  auto block = ds->ReadBlock(1, 2, 0);
  ASSERT_TRUE(block.has_value());
  EXPECT_FALSE(block->row_major);
}

}  // namespace
}  // namespace hzio
