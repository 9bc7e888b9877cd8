// Bad input gets a clear error naming the file and the problem, never a crash (issue 2 "Errors").
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

using testing::CopyGolden;
using testing::ThrowsError;

TEST(BadInput, TruncatedBlockFile) {
  testing::TempDir dir;
  std::string idx = CopyGolden(dir, "lz");
  const std::string bin = (dir.path() / "lz/visus/0000.bin").string();
  fs::resize_file(bin, fs::file_size(bin) - 100);
  auto ds = OpenDataset(idx);
  EXPECT_HZIO_ERROR(ds->Read(BoxQuery{}), ErrorCode::kCorrupt, "0000.bin", "corrupt block table");
  fs::resize_file(bin, 600);  // shorter than the block table itself
  auto ds2 = OpenDataset(idx);
  EXPECT_HZIO_ERROR(ds2->Read(BoxQuery{}), ErrorCode::kCorrupt, "0000.bin", "truncated");
}

TEST(BadInput, CorruptPayloadAndWrongDecodedSize) {
  testing::TempDir dir;
  std::string idx = CopyGolden(dir, "lz");
  const std::string bin = (dir.path() / "lz/visus/0000.bin").string();
  std::vector<uint8_t> bytes = testing::ReadBytes(bin);
  // Point every entry's payload at garbage: lz4 must fail to produce the block's exact size.
  for (size_t i = 40 + 32 * 40; i < bytes.size(); ++i) bytes[i] = 0xff;
  testing::WriteBytes(bin, bytes);
  auto ds = OpenDataset(idx);
  EXPECT_HZIO_ERROR(ds->Read(BoxQuery{}), ErrorCode::kCorrupt, "0000.bin: block", "lz4 block does not decode");
}

TEST(BadInput, RawBlockWithWrongSize) {
  testing::TempDir dir;
  std::string idx = CopyGolden(dir, "rgb_hz_raw");
  const std::string bin = (dir.path() / "rgb_hz_raw/visus/0000.bin").string();
  std::vector<uint8_t> bytes = testing::ReadBytes(bin);
  bytes[40 + 16 + 3] -= 1;  // entry 0 size one byte short
  testing::WriteBytes(bin, bytes);
  auto ds = OpenDataset(idx);
  EXPECT_HZIO_ERROR(ds->Read(BoxQuery{}), ErrorCode::kCorrupt, "0000.bin: block 0", "raw block has");
}

TEST(BadInput, QueriesOutsideTheDataset) {
  auto ds = OpenDataset(testing::GoldenPath("rgb_hz_raw/visus.idx"));
  BoxQuery q;
  q.box = Box{Point{200, 0}, Point{300, 10}};
  EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kOutOfRange, "visus.idx", "outside the dataset box");
  q = BoxQuery{};
  q.level = 14;
  EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kOutOfRange, "level 14", "0..13");
  q = BoxQuery{};
  q.field = "temperature";
  EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kNotFound, "unknown field 'temperature'", "rgb");
  q = BoxQuery{};
  q.time = 3;
  EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kNotFound, "timestep 3");
  q = BoxQuery{};
  q.box = Box{Point{0, 0, 0}, Point{1, 1, 1}};
  EXPECT_HZIO_ERROR(ds->Read(q), ErrorCode::kInvalidArgument, "3 axes");
}

TEST(BadInput, MissingFilesAndHeaders) {
  EXPECT_HZIO_ERROR(OpenDataset("/nonexistent/x.idx"), ErrorCode::kNotFound, "/nonexistent/x.idx");
  testing::TempDir dir;
  std::string idx = CopyGolden(dir, "rgb_hz_raw");
  testing::WriteBytes(idx, std::vector<uint8_t>{'(', 'v', 'e', 'r', 's', 'i', 'o', 'n', ')', '\n', '6', '\n'});
  EXPECT_HZIO_ERROR(OpenDataset(idx), ErrorCode::kInvalidArgument, "visus.idx", "missing (bits)");
  // Missing block files are absent blocks (default value), not errors.
  std::string idx2 = CopyGolden(dir, "lz");
  fs::remove(dir.path() / "lz/visus/0000.bin");
  BoxResult r = OpenDataset(idx2)->Read(BoxQuery{});
  for (int64_t i = 0; i < r.data.ByteSize(); ++i) ASSERT_EQ(r.data.data()[i], 0);
}

TEST(BadInput, FailedWriteNeverLooksComplete) {
  testing::TempDir dir;
  const std::string idx = dir.File("out.idx");
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{8, 8}};
  h.fields.push_back(Field::Parse("v uint8", 6));
  {
    DatasetWriter w(idx, h);
    std::vector<uint8_t> half(32, 1);
    w.Write(0, 0, Box{Point{0, 0}, Point{8, 4}}, half.data());
    EXPECT_HZIO_ERROR(w.Write(0, 0, Box{Point{0, 0}, Point{9, 9}}, half.data()), ErrorCode::kOutOfRange,
                      "not inside the dataset box");
    // Abandoned without Finish().
  }
  EXPECT_FALSE(fs::exists(idx));
  // An existing dataset is never overwritten by a new writer.
  std::string golden = CopyGolden(dir, "lz");
  const std::string before = testing::ReadText(golden);
  IdxHeader other;
  other.box = Box{Point{0, 0}, Point{30, 20}};
  other.fields.push_back(Field::Parse("DATA int16", 6));
  EXPECT_HZIO_ERROR(DatasetWriter w(golden, other), ErrorCode::kInvalidArgument, "already exists");
  EXPECT_EQ(testing::ReadText(golden), before);
}

}  // namespace
}  // namespace hzio
