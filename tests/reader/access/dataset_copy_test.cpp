// `hzio copy` in the library (access/dataset_copy.h): classic <-> ARCO, another compression,
// layout and block geometry, some fields and timesteps; the copy reads like its source at every
// level; small slabs stream; an existing destination and unknown fields are refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "hzio/access/arco_block_source.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_copy.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// Every level of every field and timestep of `b` equals `a`'s.
void ExpectSameReads(const std::string& a, const std::string& b) {
  auto da = OpenDataset(a), db = OpenDataset(b);
  ASSERT_EQ(da->header().maxh(), db->header().maxh());
  for (const Field& f : db->header().fields)
    for (int64_t t : db->header().time.List())
      for (int level = 0; level <= da->header().maxh(); ++level) {
        BoxQuery q;
        q.field = f.name;
        q.time = t;
        q.level = level;
        const BoxResult ra = da->Read(q), rb = db->Read(q);
        ASSERT_EQ(ra.data.ByteSize(), rb.data.ByteSize());
        ASSERT_EQ(0, std::memcmp(ra.data.data(), rb.data.data(), static_cast<size_t>(ra.data.ByteSize())))
            << f.name << " t" << t << " level " << level;
      }
}

TEST(DatasetCopy, ClassicToArcoAndBackInSmallSlabs) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 40, 24, 12, 2);
  CopyOptions to_arco;
  to_arco.arco = 8192;
  to_arco.compression = "";
  to_arco.slab_bytes = 1;  // one z plane at a time
  auto source = OpenDataset(src);
  EXPECT_EQ(CopyDataset(*source, dir.File("arco.idx"), to_arco), int64_t{40} * 24 * 12 * 4 * 2);
  auto arco = OpenDataset(dir.File("arco.idx"));
  EXPECT_NE(dynamic_cast<ArcoBlockSource*>(arco->block_source().get()), nullptr);
  EXPECT_EQ(arco->header().arco, 8192);
  EXPECT_EQ(arco->header().fields[0].compression, "");
  ExpectSameReads(src, dir.File("arco.idx"));

  CopyOptions back;
  back.compression = "zip";
  back.hz_layout = true;
  back.bits_per_block = 7;
  back.blocks_per_file = 3;
  CopyDataset(*arco, dir.File("classic.idx"), back);
  auto classic = OpenDataset(dir.File("classic.idx"));
  EXPECT_NE(dynamic_cast<ClassicBlockSource*>(classic->block_source().get()), nullptr);
  EXPECT_EQ(classic->header().bits_per_block, 7);
  EXPECT_EQ(classic->header().blocks_per_file, 3);
  EXPECT_TRUE(classic->header().fields[0].hz_layout);
  ExpectSameReads(src, dir.File("classic.idx"));
}

TEST(DatasetCopy, SomeFieldsAndTimesteps) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 16, 8, 4, 3);
  auto source = OpenDataset(src);
  CopyOptions some;
  some.times = std::make_pair(int64_t{1}, int64_t{2});
  some.fields = {"v"};
  CopyDataset(*source, dir.File("some.idx"), some);
  auto copy = OpenDataset(dir.File("some.idx"));
  EXPECT_EQ(copy->header().time.List(), (std::vector<int64_t>{1, 2}));
  BoxQuery q;
  q.time = 2;
  const BoxResult a = source->Read(q), b = copy->Read(q);
  EXPECT_EQ(0, std::memcmp(a.data.data(), b.data.data(), static_cast<size_t>(a.data.ByteSize())));
}

TEST(DatasetCopy, RefusesAnExistingDestinationAndUnknownParts) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 16, 8, 4, 1);
  auto source = OpenDataset(src);
  const std::string before = testing::ReadText(src);
  EXPECT_HZIO_ERROR(CopyDataset(*source, src, CopyOptions{}), ErrorCode::kInvalidArgument, src, "already exists");
  EXPECT_EQ(testing::ReadText(src), before);
  CopyOptions unknown;
  unknown.fields = {"nope"};
  EXPECT_HZIO_ERROR(CopyDataset(*source, dir.File("x.idx"), unknown), ErrorCode::kNotFound, "no field 'nope'");
  CopyOptions times;
  times.times = std::make_pair(int64_t{0}, int64_t{5});
  EXPECT_HZIO_ERROR(CopyDataset(*source, dir.File("x.idx"), times), ErrorCode::kNotFound, "timestep 5");
  EXPECT_FALSE(fs::exists(dir.File("x.idx")));
}

}  // namespace
}  // namespace hzio
