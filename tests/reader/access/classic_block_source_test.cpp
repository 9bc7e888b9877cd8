// Classic block files under faults (TEAM.md contracts 1 and 3): something that is not a regular
// file in a block file's place, block files truncated, replaced or removed while a dataset is
// open, with or without a new version of the dataset committed meanwhile. Always a clear error
// for the query that touches the file, never a hang or a SIGBUS.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// The tiny V0101 dataset of idx-format.md §4.8 (4x4 uint8 = 10y+x, bpb 2, bpf 2): blocks 0,1 in
// hz/0000.bin, blocks 2,3 in hz/0002.bin. Level 3 needs only the first file.
struct Tiny {
  testing::TempDir dir;
  std::string idx, first, second;
  Tiny() {
    fs::copy(testing::GoldenPath("tiny/hz"), dir.path() / "hz", fs::copy_options::recursive);
    fs::copy_file(testing::GoldenPath("tiny/hz.idx"), dir.path() / "hz.idx");
    idx = dir.File("hz.idx");
    first = dir.File("hz/0000.bin");
    second = dir.File("hz/0002.bin");
  }
};

BoxResult ReadLevel(Dataset& ds, int level) {
  BoxQuery q;
  q.level = level;
  return ds.Read(q);
}

// Runs fn on another thread; fails (instead of hanging the suite) when it takes over 20 s.
std::exception_ptr WithinTimeout(const std::function<void()>& fn) {
  auto done = std::make_shared<std::promise<std::exception_ptr>>();
  std::future<std::exception_ptr> result = done->get_future();
  std::thread([fn, done] {
    try {
      fn();
      done->set_value(nullptr);
    } catch (...) {
      done->set_value(std::current_exception());
    }
  }).detach();
  if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "the read hangs";
    return nullptr;
  }
  return result.get();
}

void ExpectFullLevel(Dataset& ds) {
  const BoxResult r = ReadLevel(ds, 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) ASSERT_EQ(r.data.data()[4 * y + x], 10 * y + x) << x << "," << y;
}

TEST(ClassicBlockSource, FifoInPlaceOfABlockFileFailsThatQueryOnly) {
  Tiny t;
  fs::remove(t.second);
  ASSERT_EQ(::mkfifo(t.second.c_str(), 0600), 0);
  auto ds = OpenDataset(t.idx);
  EXPECT_TRUE(testing::IsError(WithinTimeout([&] { ReadLevel(*ds, 4); }), ErrorCode::kIo,
                               {"hz/0002.bin", "not a regular file", "FIFO"}));
  const BoxResult coarse = ReadLevel(*ds, 3);  // blocks 0 and 1 only: unaffected
  EXPECT_EQ(coarse.grid.NumSamples(), 8);
}

TEST(ClassicBlockSource, DeviceOrDirectoryInPlaceOfABlockFileIsAnError) {
  Tiny t;
  fs::remove(t.second);
  fs::create_symlink("/dev/zero", t.second);  // a character device that never ends
  auto ds = OpenDataset(t.idx);
  EXPECT_TRUE(testing::IsError(WithinTimeout([&] { ReadLevel(*ds, 4); }), ErrorCode::kIo,
                               {"hz/0002.bin", "not a regular file", "device"}));
  fs::remove(t.second);
  fs::create_directory(t.second);
  EXPECT_HZIO_ERROR(ReadLevel(*ds, 4), ErrorCode::kIo, "hz/0002.bin", "a directory");
  fs::remove(t.second);
  fs::copy_file(testing::GoldenPath("tiny/hz/0002.bin"), t.second);
  ExpectFullLevel(*ds);  // the file is back: so are its blocks
}

TEST(ClassicBlockSource, FileTruncatedAfterItsTableWasReadIsCorruptNotSigbus) {
  Tiny t;
  auto ds = OpenDataset(t.idx);
  ExpectFullLevel(*ds);  // tables cached
  auto& source = dynamic_cast<ClassicBlockSource&>(*ds->block_source());
  auto table = source.Table(t.second);
  const BlockEntry entry = source.Entry(*table, 0, 3);
  fs::resize_file(t.second, entry.offset + 1);  // between the table and the read
  std::vector<uint8_t> out(entry.size);
  EXPECT_HZIO_ERROR(source.ReadRange(*table, entry.offset, entry.size, out.data()), ErrorCode::kCorrupt,
                    "hz/0002.bin is shorter than its block table says (truncated while reading?)");
  // The next query sees the file's new size and reads its table again: corrupt, naming it.
  EXPECT_HZIO_ERROR(ReadLevel(*ds, 4), ErrorCode::kCorrupt, "hz/0002.bin", "corrupt block table");
}

// Commits a new version of the dataset as writers do (TEAM.md contract 3): the .idx replaced by
// an atomic rename.
void CommitNewIdx(const std::string& idx) {
  const std::string text = testing::ReadText(idx);
  const std::string staged = idx + ".new";
  std::ofstream(staged, std::ios::binary) << text << "\n";
  fs::rename(staged, idx);
}

TEST(ClassicBlockSource, TruncatedWhileANewVersionWasCommittedIsChanged) {
  Tiny t;
  auto ds = OpenDataset(t.idx);
  ExpectFullLevel(*ds);
  auto& source = dynamic_cast<ClassicBlockSource&>(*ds->block_source());
  auto table = source.Table(t.second);
  const BlockEntry entry = source.Entry(*table, 0, 3);
  CommitNewIdx(t.idx);
  fs::resize_file(t.second, entry.offset + 1);
  std::vector<uint8_t> out(entry.size);
  EXPECT_HZIO_ERROR(source.ReadRange(*table, entry.offset, entry.size, out.data()), ErrorCode::kChanged,
                    "hz.idx", "dataset changed while reading; reopen it");
  EXPECT_HZIO_ERROR(ReadLevel(*ds, 4), ErrorCode::kChanged, "dataset changed while reading");
}

TEST(ClassicBlockSource, FileRemovedAfterANewIdxWasRenamedOverIsChanged) {
  Tiny t;
  auto ds = OpenDataset(t.idx);
  const std::string version = ds->Version();
  ExpectFullLevel(*ds);  // tables cached
  CommitNewIdx(t.idx);
  fs::remove(t.second);
  EXPECT_HZIO_ERROR(ReadLevel(*ds, 4), ErrorCode::kChanged, "dataset changed while reading; reopen it");
  // Reopened: the new version, whose file is missing: absent blocks (default value 0).
  auto reopened = OpenDataset(t.idx);
  EXPECT_NE(reopened->Version(), version);
  const BoxResult r = ReadLevel(*reopened, 4);
  EXPECT_EQ(r.data.data()[1 + 4 * 1], 0);   // (1,1): block 2, gone
  EXPECT_EQ(r.data.data()[2 + 4 * 2], 22);  // (2,2): block 0
}

TEST(ClassicBlockSource, FileRemovedAfterItsBlocksWereReadWithoutANewVersionIsAnError) {
  Tiny t;
  auto ds = OpenDataset(t.idx);
  ExpectFullLevel(*ds);  // the second file's blocks were read
  fs::remove(t.second);
  // Not the format's missing block: defaults would be wrong samples handed out as right.
  EXPECT_HZIO_ERROR(ReadLevel(*ds, 4), ErrorCode::kIo, "hz/0002.bin vanished after its blocks were read",
                    "hz.idx) is unchanged");
  // Levels that do not touch it still read.
  EXPECT_EQ(ReadLevel(*ds, 3).data.data()[0], 0);
  // Put back, it is read anew.
  fs::copy_file(testing::GoldenPath("tiny/hz/0002.bin"), t.second);
  ExpectFullLevel(*ds);
}

TEST(ClassicBlockSource, FileMissingBeforeItWasReadMeansAbsentBlocks) {
  Tiny t;
  fs::remove(t.second);
  auto ds = OpenDataset(t.idx);
  const BoxResult r = ReadLevel(*ds, 4);
  EXPECT_EQ(r.data.data()[1 + 4 * 1], 0);  // (1,1): block 2, absent
  EXPECT_EQ(r.data.data()[2 + 4 * 0], 2);
}

TEST(ClassicBlockSource, ReplacedFileIsReadAnew) {
  Tiny t;
  auto ds = OpenDataset(t.idx);
  ExpectFullLevel(*ds);
  // A new file in its place (rename: another inode): block 0's sample (2,2) (hz index 3 of its
  // raw payload at byte 120, idx-format.md §4.8) becomes 99.
  std::vector<uint8_t> bytes = testing::ReadBytes(t.first);
  bytes[120 + 3] = 99;
  testing::WriteBytes(t.first + ".new", bytes);
  fs::rename(t.first + ".new", t.first);
  EXPECT_EQ(ReadLevel(*ds, 4).data.data()[2 + 4 * 2], 99);
}

TEST(ClassicBlockSource, VersionIsTheIdxIdentity) {
  Tiny t;
  auto a = OpenDataset(t.idx), b = OpenDataset(t.idx);
  EXPECT_EQ(a->Version(), b->Version());
  CommitNewIdx(t.idx);
  EXPECT_NE(OpenDataset(t.idx)->Version(), a->Version());
  EXPECT_EQ(a->Version(), b->Version());  // an open dataset keeps the version it reads
}

TEST(ClassicBlockSource, ManyFilesStayWithinTheOpenFileBound) {
  // 32 blocks of 16 samples, one block a file: a whole read touches 32 files.
  testing::TempDir dir;
  testing::SyntheticLayout many;
  many.bits_per_block = 4;
  many.blocks_per_file = 1;
  const std::string idx = testing::WriteSyntheticDataset(dir, 16, 8, 4, many);
  auto header = std::make_shared<const IdxHeader>(OpenDataset(idx)->header());
  auto layout = std::make_shared<const BlockLayout>(header->bitmask, header->bits_per_block);
  ClassicBlockSource::Options options;
  options.max_open_files = 2;
  auto source = std::make_shared<ClassicBlockSource>(header, layout, idx, std::nullopt, options);
  Dataset ds(source, idx, OpenOptions{});
  for (int round = 0; round < 2; ++round) {
    const BoxResult r = ds.Read(BoxQuery{});
    const float* v = reinterpret_cast<const float*>(r.data.data());
    for (int64_t z = 0; z < 4; ++z)
      for (int64_t y = 0; y < 8; ++y)
        for (int64_t x = 0; x < 16; ++x) ASSERT_EQ(v[x + 16 * (y + 8 * z)], testing::SyntheticValue(x, y, z, 0));
  }
}

}  // namespace
}  // namespace hzio
