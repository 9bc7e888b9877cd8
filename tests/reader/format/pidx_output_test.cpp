// The PIDX 0.9.3-readable form of a header (format/pidx_output.h): the file names PIDX derives,
// checked against the headers PIDX itself wrote (pidx-golden), the counted dtype spelling and its
// round trip, and the datasets PIDX cannot read refused with the key named.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/format/block_files.h"
#include "hzio/format/idx_header.h"
#include "hzio/format/pidx_output.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

IdxHeader Header(const std::string& fields, const Point& dims, int64_t blocks_per_file = 4, int bits_per_block = 0) {
  IdxHeader h;
  h.box = Box(Point(dims.dims), dims);
  h.bitmask = Bitmask::Guess(dims);
  h.fields = ParseFields(fields, 6);
  for (Field& f : h.fields) f.hz_layout = true;
  h.blocks_per_file = blocks_per_file;
  h.bits_per_block = bits_per_block;
  h.Validate("s");
  return h;
}

void ExpectRefused(IdxHeader h, const std::string& substring) {
  try {
    MakePidxReadable(h, "s");
    ADD_FAILURE() << "accepted: " << substring;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("PIDX"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

TEST(PidxOutput, TemplateIsTheOnePidxWroteForItsOwnDatasets) {
  for (const char* stem : {"mixed_n2", "mixed_n4", "s3d_n2"}) {
    const std::string path = std::string(HZIO_SOURCE_DIR) + "/../shared/testdata/pidx-golden/" + stem + ".idx";
    const std::string text = testing::ReadText(path);
    ASSERT_FALSE(text.empty()) << path;
    const IdxHeader h = IdxHeader::Parse(text, path, stem);
    EXPECT_EQ(PidxFilenameTemplate(stem, h.maxh(), h.bits_per_block), h.filename_template) << stem;
  }
}

TEST(PidxOutput, TemplateRoundsBlockBitsUpToHexDigits) {
  EXPECT_EQ(PidxFilenameTemplate("s", 13, 13), "./s/%01x.bin");  // one block: one file name
  EXPECT_EQ(PidxFilenameTemplate("s", 14, 13), "./s/%02x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 20, 12), "./s/%02x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 21, 12), "./s/%03x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 28, 12), "./s/%04x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 29, 12), "./s/%02x/%04x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 36, 12), "./s/%02x/%04x.bin");
  EXPECT_EQ(PidxFilenameTemplate("s", 37, 12), "./s/%02x/%02x/%04x.bin");
}

TEST(PidxOutput, HeaderGetsDerivedTemplateAndCountedDtypes) {
  IdxHeader h = Header("pressure float64 + velocity float64[3] + flag int32", Point{32, 32, 64}, 8, 12);  // 2^4 blocks
  h.time = TimeSpec::Range(0, 2, "time_%02d/");
  MakePidxReadable(h, "s");
  EXPECT_EQ(h.filename_template, PidxFilenameTemplate("s", h.maxh(), h.bits_per_block));
  const std::string text = h.ToText();
  EXPECT_NE(text.find("pressure 1*float64 "), std::string::npos) << text;
  EXPECT_NE(text.find("velocity 3*float64 "), std::string::npos) << text;
  EXPECT_NE(text.find("flag 1*int32 "), std::string::npos) << text;
  // Read back (hzio, OpenVisus): the same dtypes, and written the same way again.
  const IdxHeader back = IdxHeader::Parse(text, "s.idx", "s");
  ASSERT_EQ(back.fields.size(), 3u);
  EXPECT_EQ(back.fields[1].dtype, DType::Parse("float64[3]"));
  EXPECT_TRUE(back.fields[1].counted_dtype);
  EXPECT_EQ(back.ToText(), text);
  // File names: what PIDX derives is where hzio's own template expansion puts the blocks.
  const BlockFiles files(back, "/d");
  EXPECT_EQ(back.filename_template, "./s/%02x.bin");
  EXPECT_EQ(files.FilePath(0, 1), "/d/s/time_01/00.bin");
  EXPECT_EQ(files.FilePath(9, 2), "/d/s/time_02/08.bin");
}

TEST(PidxOutput, DatasetsPidxCannotReadAreRefusedNamingTheKey) {
  IdxHeader zip = Header("a float64", Point{16, 16, 16});
  zip.fields[0].compression = "zip";
  ExpectRefused(zip, "field 'a' is compressed (zip)");
  IdxHeader row = Header("a float64", Point{16, 16, 16});
  row.fields[0].hz_layout = false;
  ExpectRefused(row, "row-major");
  ExpectRefused(Header("species float64[11]", Point{16, 16, 16}), "dtype float64[11]");
  ExpectRefused(Header("m uint32[5]", Point{16, 16, 16}), "dtype uint32[5]");
  ExpectRefused(Header("a float32", Point{16, 16}), "2-D box");
  IdxHeader interleaved = Header("a float32", Point{16, 16, 16});
  interleaved.interleave = 2;
  ExpectRefused(interleaved, "(interleave block) 2");
  IdxHeader unset = Header("a float32", Point{16, 16, 16});
  unset.blocks_per_file = 0;  // not validated: PIDX needs the number itself
  ExpectRefused(unset, "(blocksperfile) 0");
  IdxHeader odd_time = Header("a float32", Point{16, 16, 16});
  odd_time.time = TimeSpec::Range(0, 3, "t%d_");
  ExpectRefused(odd_time, "time template 't%d_'");
  // 2^28 blocks per file of 2^16 float64 samples: far beyond PIDX's 32-bit offsets.
  IdxHeader huge = Header("a float64", Point{1024, 1024, 1024}, int64_t{1} << 20);
  ExpectRefused(huge, "32-bit offsets");
}

}  // namespace
}  // namespace hzio
