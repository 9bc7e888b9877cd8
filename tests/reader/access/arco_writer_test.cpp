// hzio's ARCO writes (idx-format.md §4.12) through DatasetWriter: new datasets only, one file per
// block at the place the .idx path fixes, the .idx last (TEAM.md contract 3). Read back through
// the ARCO block source; what a killed or abandoned writer leaves is never read as data.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "hzio/access/arco_block_source.h"
#include "hzio/access/arco_parts.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/format/arco_block_path.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// 30x5 (padded to 32x32, so blocks outside the box are absent), a zip float32 field and a raw
// hz-ordered uint8[3] field; (arco) 256 bytes: 64 samples of the widest field per block.
IdxHeader Header() {
  return IdxHeader::Parse(
      "(version)\n6\n(box)\n0 29 0 4\n(fields)\na float32 default_compression(zip)\n"
      "+ b uint8[3] default_layout(hzorder)\n(bits)\nV0101010101\n(arco)\n256\n",
      "arco.idx", "arco");
}

std::vector<uint8_t> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

std::vector<uint8_t> ReadField(const std::string& idx, const std::string& field) {
  auto ds = OpenDataset(idx);
  BoxQuery q;
  q.field = field;
  const BoxResult r = ds->Read(q);
  return std::vector<uint8_t>(r.data.data(), r.data.data() + r.data.ByteSize());
}

TEST(ArcoWriter, WritesOneFilePerBlockAndReadsBack) {
  testing::TempDir dir;
  const std::string idx = dir.File("arco.idx");
  const IdxHeader h = Header();
  EXPECT_EQ(h.bits_per_block, 6);
  const std::vector<uint8_t> a = Random(30 * 5 * 4, 1), b = Random(30 * 5 * 3, 2);
  {
    DatasetWriter w(idx, h);
    w.Write(0, 0, h.box, a.data());
    w.Write(1, 0, h.box, b.data());
    EXPECT_FALSE(fs::exists(idx));  // the header goes last
    w.Finish();
  }
  auto ds = OpenDataset(idx);
  ASSERT_NE(dynamic_cast<ArcoBlockSource*>(ds->block_source().get()), nullptr);
  EXPECT_EQ(ReadField(idx, "a"), a);
  EXPECT_EQ(ReadField(idx, "b"), b);
  const std::string root = ArcoRoot(idx);
  EXPECT_TRUE(fs::is_regular_file(ArcoBlockPath(root, 0, "a", 0)));
  // Raw: exactly the block's bytes (64 samples of uint8[3]); zip: a zlib stream.
  EXPECT_EQ(fs::file_size(ArcoBlockPath(root, 0, "b", 1)), 64u * 3);
  EXPECT_EQ(testing::ReadBytes(ArcoBlockPath(root, 0, "a", 1))[0], 0x78);
  // Blocks with no sample in the box have no file (absent, §4.6).
  size_t files = 0, present = 0;
  for (uint64_t blk = 0; blk < ds->layout().total_blocks(); ++blk) {
    files += fs::exists(ArcoBlockPath(root, 0, "a", blk));
    present += ds->ReadBlock(0, 0, blk).has_value();
  }
  EXPECT_EQ(files, present);
  EXPECT_LT(files, ds->layout().total_blocks());
}

TEST(ArcoWriter, RewritingPartOfABlockInOneWriteMergesWithWhatItWrote) {
  testing::TempDir dir;
  const std::string idx = dir.File("arco.idx");
  const IdxHeader h = Header();
  std::vector<uint8_t> a = Random(30 * 5 * 4, 3);
  const std::vector<uint8_t> patch = Random(7 * 3 * 4, 4);
  const Box sub = Box::ParseRanges("3:10,1:4");
  {
    DatasetWriter w(idx, h);
    w.Write(0, 0, h.box, a.data());
    w.Write(0, 0, sub, patch.data());  // its blocks were flushed whole already
    w.Finish();
  }
  for (int64_t y = 0; y < 3; ++y)
    std::memcpy(&a[static_cast<size_t>(((1 + y) * 30 + 3) * 4)], &patch[static_cast<size_t>(y * 7 * 4)], 7 * 4);
  EXPECT_EQ(ReadField(idx, "a"), a);
}

TEST(ArcoWriter, FilesAKilledWriterLeftAreNotReadAsTheNewDatasets) {
  testing::TempDir dir;
  const std::string idx = dir.File("arco.idx");
  const IdxHeader h = Header();
  // The last block lies outside the 30x5 box: no write makes it, a killed one "did".
  auto probe = std::make_shared<BlockLayout>(h.bitmask, h.bits_per_block);
  const uint64_t outside = probe->total_blocks() - 1;
  const std::string stale = ArcoBlockPath(ArcoRoot(idx), 0, "a", outside);
  fs::create_directories(fs::path(stale).parent_path());
  testing::WriteBytes(stale, std::vector<uint8_t>(64 * 4, 0xab));
  const std::vector<uint8_t> a = Random(30 * 5 * 4, 5);
  {
    DatasetWriter w(idx, h);
    w.Write(0, 0, h.box, a.data());
    w.Finish();
  }
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_FALSE(OpenDataset(idx)->ReadBlock(0, 0, outside).has_value());
}

TEST(ArcoWriter, AnAbandonedWriteLeavesNothing) {
  testing::TempDir dir;
  const std::string idx = dir.File("arco.idx");
  const IdxHeader h = Header();
  const std::vector<uint8_t> a = Random(30 * 5 * 4, 6);
  {
    DatasetWriter w(idx, h);
    w.Write(0, 0, h.box, a.data());
    ASSERT_TRUE(fs::exists(ArcoBlockPath(ArcoRoot(idx), 0, "a", 0)));
  }  // no Finish
  EXPECT_FALSE(fs::exists(idx));
  EXPECT_FALSE(fs::exists(ArcoRoot(idx) + "/0/a"));
}

TEST(ArcoWriter, ExistingArcoDatasetsAreRefusedEmptyOnesCreated) {
  testing::TempDir dir;
  const std::string idx = dir.File("arco.idx");
  const IdxHeader h = Header();
  const std::vector<uint8_t> a = Random(30 * 5 * 4, 7);
  {
    DatasetWriter w(idx, h);
    w.Write(0, 0, h.box, a.data());
    w.Finish();
  }
  WriterOptions existing;
  existing.allow_existing = true;
  EXPECT_HZIO_ERROR(DatasetWriter(idx, h, existing), ErrorCode::kUnsupported, idx,
                    "an existing ARCO dataset cannot be changed yet");
  EXPECT_EQ(ReadField(idx, "a"), a);
  // An empty one can be created (its header alone: every block absent, §4.12) and read, but not
  // filled or changed by hzio.
  const std::string empty = dir.File("empty.idx");
  CreateEmptyDataset(empty, h);
  EXPECT_EQ(ReadField(empty, "a"), std::vector<uint8_t>(a.size(), 0));
  EXPECT_FALSE(std::filesystem::exists(dir.File("empty")));  // no block file, no part directory
  EXPECT_HZIO_ERROR(DatasetWriter(empty, h, existing), ErrorCode::kUnsupported, "empty.idx",
                    "an existing ARCO dataset cannot be changed yet");
  EXPECT_HZIO_ERROR(CreateEmptyDataset(empty, h), ErrorCode::kInvalidArgument, "empty.idx", "already exists");
}

}  // namespace
}  // namespace hzio
