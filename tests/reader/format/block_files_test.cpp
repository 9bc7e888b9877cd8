#include "hzio/format/block_files.h"

#include <gtest/gtest.h>

#include "hzio/util/error.h"
#include "support/test_support.h"

namespace hzio {
namespace {

// idx-format.md §4.4 verified table (bpf 4, so first(b) = b - b % 4).
TEST(BlockFiles, FilenameTable) {
  EXPECT_EQ(ExpandFilenameTemplate("./data/%04x.bin", 4, ""), "./data/0004.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./data/%04x.bin", 70000, ""), "./data/0001/1170.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./data/%04x.bin", 268435452, ""), "./data/0fff/fffc.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./big/%02x/%04x.bin", 70000, ""), "./big/01/1170.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./big/%02x/%04x.bin", 268435452, ""), "./big/0f/ff/fffc.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./a/%02x/%02x/%02x/%04x.bin", 70000, "time_0007/"),
            "./a/time_0007/00/00/01/1170.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./x/%01x/%03x.raw", 1193044, "13/"), "./x/13/1/2/3/454.raw");
  EXPECT_EQ(ExpandFilenameTemplate("./y/blk_%04x.bin", 4, "t7_"), "./y/blk_t7_0004.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./gray/%01x.bin", 0, ""), "./gray/0.bin");
  EXPECT_EQ(ExpandFilenameTemplate("./one/file.bin", 12, "ignored"), "./one/file.bin");
  EXPECT_THROW(ExpandFilenameTemplate("./bad/%x.bin", 0, ""), Error);
  EXPECT_THROW(ExpandFilenameTemplate("./bad/%4x.bin", 0, ""), Error);
}

TEST(BlockFiles, PathsPositionsAndTime) {
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{32, 32, 16}};
  h.fields.push_back(Field::Parse("t float32", 6));
  h.bits_per_block = 10;
  h.blocks_per_file = 16;
  h.time = TimeSpec::Parse("0 2 time_%02d/");
  h.filename_template = "./visus/%04x.bin";
  h.Validate();
  BlockFiles f(h, "/data/set");
  EXPECT_EQ(f.FilePath(5, 2), "/data/set/visus/time_02/0000.bin");
  EXPECT_EQ(f.FilePath(17, 0), "/data/set/visus/time_00/0010.bin");
  EXPECT_EQ(f.PositionInFile(17), 1);
  EXPECT_EQ(f.FirstBlockInFile(17), 16u);
  h.interleave = 2;
  BlockFiles g(h, "/d");
  EXPECT_EQ(g.PositionInFile(5), 2);  // floor(5/2) mod 16
  EXPECT_EQ(g.FirstBlockInFile(5), 1u);
}

// A version 1-4 template goes to printf with first(b) (§4.10); one that printf would misread (here
// "%s", once a segfault of `hzio read`) is refused when the files are laid out, naming it.
TEST(BlockFiles, OldTemplatesArePrintedOrRefused) {
  IdxHeader h;
  h.version = 4;
  h.box = Box{Point{0, 0, 0}, Point{8, 8, 8}};
  h.fields.push_back(Field::Parse("t uint8", 4));
  h.bits_per_block = 4;
  h.blocks_per_file = 1;
  h.time = TimeSpec::Parse("0 2 t%d_");
  h.filename_template = "./data/%04d.bin";
  h.Validate();
  EXPECT_EQ(BlockFiles(h, "/d").FilePath(3, 2), "/d/data/t2_0003.bin");
  h.filename_template = "./data/%s.d";
  EXPECT_HZIO_ERROR(BlockFiles(h, "/d"), ErrorCode::kInvalidArgument, "filename template", "%s.d");
}

}  // namespace
}  // namespace hzio
