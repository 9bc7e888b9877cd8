// Data directories, their generations and block file names (access/dataset_paths.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/format/block_files.h"
#include "hzio/format/hzio_keys.h"
#include "hzio/hz/block_layout.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;
using testing::ThrowsError;

IdxHeader Header(const std::string& tmpl, int bpb = 4, int64_t bpf = 2) {
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{64, 32}};
  h.fields.push_back(Field::Parse("v uint8", 6));
  h.time = TimeSpec::Range(0, 12, "time_%02d/");
  h.has_time = true;
  h.bits_per_block = bpb;
  h.blocks_per_file = bpf;
  h.filename_template = tmpl;
  h.Validate("visus");
  return h;
}

TEST(DatasetPaths, GenerationsAreSiblingDirectories) {
  const std::string idx = "/data/run/visus.idx";
  IdxHeader h = Header("./visus/%04x.bin");
  DataDirectory d = DataDirectoryOf(h, idx);
  EXPECT_EQ(d.path, "/data/run/visus");
  EXPECT_TRUE(d.dedicated);
  EXPECT_EQ(d.base_name, "visus");
  EXPECT_EQ(d.generation, 1);
  IdxHeader g2 = WithGeneration(h, idx, 2);
  EXPECT_EQ(g2.filename_template, "./visus.g2/%04x.bin");
  EXPECT_EQ(Generation(g2), 2);
  IdxHeader g3 = WithGeneration(g2, idx, 3);
  EXPECT_EQ(g3.filename_template, "./visus.g3/%04x.bin");
  d = DataDirectoryOf(g3, idx);
  EXPECT_EQ(d.path, "/data/run/visus.g3");
  EXPECT_EQ(d.base_name, "visus");
  EXPECT_EQ(WithGeneration(Header("$(CurrentFileDirectory)/data/%02x/%04x.bin"), idx, 2).filename_template,
            "$(CurrentFileDirectory)/data.g2/%02x/%04x.bin");
  // Files beside the .idx get a directory of their own.
  IdxHeader beside = Header("./visus_%04x.bin");
  EXPECT_FALSE(DataDirectoryOf(beside, idx).dedicated);
  EXPECT_EQ(DataDirectoryOf(beside, idx).path, "/data/run");
  EXPECT_EQ(WithGeneration(beside, idx, 2).filename_template, "./visus.g2/visus_%04x.bin");
  EXPECT_TRUE(ThrowsError([&] { WithGeneration(g3, idx, 3); }, ErrorCode::kInternal, {"generation 3"}));
}

TEST(DatasetPaths, BlockFileNamesParseEveryNameTheTemplateMakes) {
  // One hex digit per group: block numbers past 15 need overflow directories (§4.4).
  for (const std::string tmpl : {"./visus/%01x.bin", "./visus/%02x/%01x.bin", "./v/data_%02x.bin"}) {
    const IdxHeader h = Header(tmpl, 4, 1);
    const BlockFiles files(h, "/d");
    const BlockFileNames names(h);
    const DataDirectory d = DataDirectoryOf(h, "/d/visus.idx");
    for (int64_t t : {0, 7, 12}) {
      for (uint64_t b = 0; b < BlockLayout(h.bitmask, h.bits_per_block).total_blocks(); ++b) {
        const std::string rel = fs::path(files.FilePath(b, t)).lexically_relative(d.path).string();
        const auto id = names.Parse(rel);
        ASSERT_TRUE(id.has_value()) << tmpl << " " << rel;
        EXPECT_EQ(id->first_block, b) << rel;
        EXPECT_EQ(id->time, t) << rel;
      }
    }
    EXPECT_FALSE(names.Matches("time_00/zz.bin")) << tmpl;
    EXPECT_FALSE(names.Parse("README").has_value()) << tmpl;
  }
}

TEST(DatasetPaths, ExistingBlockFilesListsOnlyWhatTheHeaderReads) {
  testing::TempDir dir;
  const std::string idx = dir.File("visus.idx");
  const IdxHeader h = Header("./visus/%04x.bin");
  const BlockFiles files(h, dir.path().string());
  for (const std::string& p : {files.FilePath(0, 0), files.FilePath(2, 0), files.FilePath(0, 12)}) {
    fs::create_directories(fs::path(p).parent_path());
    testing::WriteBytes(p, {1});
  }
  fs::create_directories(dir.path() / "visus/time_13");
  testing::WriteBytes(dir.File("visus/time_13/0000.bin"), {1});   // an undeclared timestep
  testing::WriteBytes(dir.File("visus/time_00/0001.bin"), {1});   // not the first block of a file
  testing::WriteBytes(dir.File("visus/time_00/0000.bin.tmp.12"), {1});
  testing::WriteBytes(dir.File("visus/notes.txt"), {1});
  std::vector<std::string> got;
  for (const BlockFileRef& f : ExistingBlockFiles(h, idx)) got.push_back(std::to_string(f.first_block) + "@" + std::to_string(f.time));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"0@0", "0@12", "2@0"}));
  EXPECT_EQ(ExistingBlockFiles(h, idx, 12).size(), 1u);
  EXPECT_TRUE(ExistingBlockFiles(Header("./elsewhere/%04x.bin"), idx).empty());
}

TEST(DatasetPaths, OutputsInsideTheDatasetAreRefused) {
  testing::TempDir dir;
  const std::string idx = dir.File("visus.idx");
  testing::WriteBytes(idx, {1});
  const IdxHeader h = WithGeneration(Header("./visus/%04x.bin"), idx, 2);
  fs::create_directories(dir.path() / "visus.g2/time_00");
  testing::WriteBytes(dir.File("visus.g2/time_00/0000.bin"), {1});
  const std::string why = "being read";
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(idx, h, idx); }, ErrorCode::kInvalidArgument, {"the .idx", why}));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus.idx.lock"), h, idx); }, ErrorCode::kInvalidArgument, {"lock"}));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus.g2/time_00/0000.bin"), h, idx); }, ErrorCode::kInvalidArgument,
              {"inside the data directory"}));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus.g2/new.npy"), h, idx); }, ErrorCode::kInvalidArgument,
              {"inside the data directory"}));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus/x.npy"), h, idx); }, ErrorCode::kInvalidArgument,
              {"generation (visus)"}));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus.g9/x.npy"), h, idx); }, ErrorCode::kInvalidArgument,
              {"generation (visus.g9)"}));
  fs::create_symlink(dir.File("visus.g2/time_00/0000.bin"), dir.File("link.raw"));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("link.raw"), h, idx); }, ErrorCode::kInvalidArgument, {"link.raw"}));
  fs::create_hard_link(dir.File("visus.g2/time_00/0000.bin"), dir.File("hard.raw"));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("hard.raw"), h, idx); }, ErrorCode::kInvalidArgument,
              {"another name"}));
  fs::create_hard_link(idx, dir.File("hard.idx.raw"));
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("hard.idx.raw"), h, idx); }, ErrorCode::kInvalidArgument,
              {"another name"}));
  // Beside the .idx, under any other name: fine (visus.g2x is not a generation).
  CheckNotPartOfDataset(dir.File("out.npy"), h, idx);
  CheckNotPartOfDataset(dir.File("visus.g2x/out.npy"), h, idx);
  // Files beside the .idx: their names are refused, others are not.
  const IdxHeader beside = Header("./visus_%04x.bin");
  EXPECT_TRUE(ThrowsError([&] { CheckNotPartOfDataset(dir.File("visus_time_03/0004.bin"), beside, idx); },
              ErrorCode::kInvalidArgument, {"named like a block file"}));
  CheckNotPartOfDataset(dir.File("visus_out.npy"), beside, idx);
}

}  // namespace
}  // namespace hzio
