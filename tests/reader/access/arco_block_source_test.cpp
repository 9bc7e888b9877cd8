// ARCO one-file-per-block datasets (idx-format.md §4.12) under bad input: block files truncated,
// of the wrong size, with corrupt payloads, absurdly large, not regular files, missing; an absurd
// `(arco)`; a dataset replaced while it is read (TEAM.md contract 3). Always a clear error naming
// the file for the query that touches it, never a crash or a hang. The datasets are ARCO copies
// of OpenVisus's golden datasets (every payload as OpenVisus stored it).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "hzio/access/arco_block_source.h"
#include "hzio/access/arco_parts.h"
#include "hzio/access/dataset.h"
#include "hzio/format/arco_block_path.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

BoxResult ReadFinest(Dataset& ds) {
  BoxQuery q;
  q.level = ds.header().maxh();
  return ds.Read(q);
}

// An ARCO copy of golden `idx_rel` in its own directory, and the path of a block file of it.
struct ArcoCopy {
  testing::TempDir dir;
  std::string idx;
  explicit ArcoCopy(const std::string& idx_rel) : idx(testing::ArcoCopyOfGolden(dir, idx_rel, "visus")) {}
  std::string BlockFile(uint64_t block) const {
    const IdxHeader h = OpenDataset(idx)->header();
    return ArcoBlockPath(ArcoRoot(idx), h.time.Default(), h.fields[0].name, block);
  }
  // The last block with a file: a full-resolution block (the finest level's).
  uint64_t LastStoredBlock() const {
    auto ds = OpenDataset(idx);
    for (uint64_t b = ds->layout().total_blocks(); b-- > 0;)
      if (fs::exists(BlockFile(b))) return b;
    ADD_FAILURE() << "no block file";
    return 0;
  }
};

TEST(ArcoBlockSource, ReadsAsTheClassicDataset) {
  for (const char* golden : {"rgb_hz_raw/visus.idx", "rgb_hz_zip/visus.idx", "f32/visus.idx", "lz/visus.idx"}) {
    ArcoCopy arco(golden);
    auto ds = OpenDataset(arco.idx);
    ASSERT_NE(dynamic_cast<ArcoBlockSource*>(ds->block_source().get()), nullptr) << golden;
    EXPECT_EQ(ds->header().blocks_per_file, 1);
    EXPECT_TRUE(fs::is_regular_file(ArcoRoot(arco.idx) + "/0/" + ds->header().fields[0].name +
                                    "/0000/0000/0000/0000.bin"));
    const BoxResult a = ReadFinest(*ds);
    auto classic = OpenDataset(testing::GoldenPath(golden));
    const BoxResult c = ReadFinest(*classic);
    ASSERT_EQ(a.data.ByteSize(), c.data.ByteSize()) << golden;
    EXPECT_EQ(0, std::memcmp(a.data.data(), c.data.data(), static_cast<size_t>(a.data.ByteSize()))) << golden;
  }
}

TEST(ArcoBlockSource, MissingFilesAreAbsentBlocks) {
  ArcoCopy arco("rgb_hz_raw/visus.idx");
  const uint64_t last = arco.LastStoredBlock();
  fs::remove(arco.BlockFile(last));
  auto ds = OpenDataset(arco.idx);
  EXPECT_FALSE(ds->ReadBlock(0, 0, last).has_value());
  EXPECT_TRUE(ds->ReadBlock(0, 0, 0).has_value());
  // Without the part directory every block is absent: the default value (0) everywhere.
  fs::remove_all(ArcoRoot(arco.idx) + "/0");
  const BoxResult r = ReadFinest(*OpenDataset(arco.idx));
  for (int64_t i = 0; i < r.data.ByteSize(); ++i) ASSERT_EQ(r.data.data()[i], 0) << i;
}

TEST(ArcoBlockSource, TruncatedRawBlockNamesTheFile) {
  ArcoCopy arco("rgb_hz_raw/visus.idx");
  const std::string file = arco.BlockFile(arco.LastStoredBlock());
  fs::resize_file(file, fs::file_size(file) / 2);
  auto ds = OpenDataset(arco.idx);
  EXPECT_HZIO_ERROR(ReadFinest(*ds), ErrorCode::kCorrupt, file, "raw block has 96 bytes, expected 192");
}

TEST(ArcoBlockSource, RawBlockOfTheWrongSizeNamesTheFile) {
  ArcoCopy arco("rgb_hz_raw/visus.idx");
  const std::string file = arco.BlockFile(arco.LastStoredBlock());
  std::ofstream(file, std::ios::binary | std::ios::app) << "extra";
  EXPECT_HZIO_ERROR(ReadFinest(*OpenDataset(arco.idx)), ErrorCode::kCorrupt, file,
                    "raw block has 197 bytes, expected 192");
}

TEST(ArcoBlockSource, CorruptOrTruncatedZipNamesTheFile) {
  for (const bool truncate : {false, true}) {
    ArcoCopy arco("f32/visus.idx");
    const std::string file = arco.BlockFile(arco.LastStoredBlock());
    std::vector<uint8_t> bytes = testing::ReadBytes(file);
    ASSERT_GT(bytes.size(), 8u);
    if (truncate) {
      bytes.resize(bytes.size() / 2);
    } else {
      for (size_t i = 2; i < bytes.size(); ++i) bytes[i] ^= 0x5a;
    }
    testing::WriteBytes(file, bytes);
    EXPECT_HZIO_ERROR(ReadFinest(*OpenDataset(arco.idx)), ErrorCode::kCorrupt, file) << truncate;
  }
}

TEST(ArcoBlockSource, FileFarLargerThanAnyEncodingIsRefusedUnread) {
  ArcoCopy arco("f32/visus.idx");
  const std::string file = arco.BlockFile(arco.LastStoredBlock());
  fs::resize_file(file, uint64_t{1} << 40);  // sparse: a terabyte that must not be read
  EXPECT_HZIO_ERROR(ReadFinest(*OpenDataset(arco.idx)), ErrorCode::kCorrupt, file, "1099511627776 bytes",
                    "never encodes to that many");
}

TEST(ArcoBlockSource, NotARegularFileIsAnErrorNotAHang) {
  for (const bool fifo : {false, true}) {
    ArcoCopy arco("rgb_hz_raw/visus.idx");
    const uint64_t last = arco.LastStoredBlock();
    const std::string file = arco.BlockFile(last);
    fs::remove(file);
    if (fifo) {
      ASSERT_EQ(::mkfifo(file.c_str(), 0644), 0);
    } else {
      fs::create_directory(file);
    }
    auto ds = OpenDataset(arco.idx);
    EXPECT_HZIO_ERROR(ReadFinest(*ds), ErrorCode::kIo, file, "not a regular file") << fifo;
    EXPECT_TRUE(ds->ReadBlock(0, 0, 0).has_value());  // other blocks still read
  }
}

TEST(ArcoBlockSource, PartThatIsAFileIsAnError) {
  ArcoCopy arco("rgb_hz_raw/visus.idx");
  const std::string part = ArcoRoot(arco.idx) + "/0/rgb";
  fs::remove_all(part);
  testing::WriteBytes(part, {1, 2, 3});
  EXPECT_HZIO_ERROR(ReadFinest(*OpenDataset(arco.idx)), ErrorCode::kIo, part, "not a directory");
}

TEST(ArcoBlockSource, AbsurdArcoValuesNameTheHeader) {
  ArcoCopy arco("f32/visus.idx");
  const std::string text = testing::ReadText(arco.idx);
  const size_t at = text.find("(arco)\n");
  ASSERT_NE(at, std::string::npos);
  for (const std::string& value : {std::string("3"), std::string("99999999999"), std::string("-5")}) {
    std::ofstream(arco.idx, std::ios::trunc) << text.substr(0, at) << "(arco)\n" << value << "\n";
    EXPECT_HZIO_ERROR(OpenDataset(arco.idx), ErrorCode::kInvalidArgument, arco.idx, "(arco) " + value) << value;
  }
}

TEST(ArcoBlockSource, BlocksRemovedByANewVersionAreAChange) {
  ArcoCopy arco("rgb_hz_raw/visus.idx");
  auto ds = OpenDataset(arco.idx);
  const BoxResult before = ReadFinest(*ds);
  // A writer commits a new version: a new .idx renamed into place, the old blocks gone.
  const std::string text = testing::ReadText(arco.idx);
  std::ofstream(arco.idx + ".tmp") << text;
  fs::rename(arco.idx + ".tmp", arco.idx);
  fs::remove(arco.BlockFile(arco.LastStoredBlock()));
  EXPECT_HZIO_ERROR(ReadFinest(*ds), ErrorCode::kChanged, "dataset changed while reading; reopen it");
  EXPECT_NE(OpenDataset(arco.idx)->Version(), ds->Version());
}

}  // namespace
}  // namespace hzio
