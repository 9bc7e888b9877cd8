// ARCO block naming (idx-format.md §4.12) and `(arco)` sizes, against the paths OpenVisus's
// DiskAccess makes (`visus/0/data/0000/0000/0000/0001.bin`) and its byte-size parser.
#include "hzio/format/arco_paths.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace hzio {
namespace {

TEST(ArcoPaths, BlockNamesAreSixteenHexDigitsInFourGroups) {
  EXPECT_EQ(ArcoBlockName(0), "0000/0000/0000/0000.bin");
  EXPECT_EQ(ArcoBlockName(1), "0000/0000/0000/0001.bin");
  EXPECT_EQ(ArcoBlockName(0x1234abcdULL), "0000/0000/1234/abcd.bin");
  EXPECT_EQ(ArcoBlockName(0xfedcba9876543210ULL), "fedc/ba98/7654/3210.bin");
}

TEST(ArcoPaths, TimeAndFieldComponents) {
  EXPECT_EQ(ArcoTimeName(0), "0");
  EXPECT_EQ(ArcoTimeName(17), "17");
  EXPECT_EQ(ArcoTimeName(-3), "3");  // OpenVisus keeps letters and digits only
  EXPECT_EQ(ArcoFieldName("data"), "data");
  EXPECT_EQ(ArcoFieldName("my field"), "myfield");
  EXPECT_EQ(ArcoPartName(2, "temperature"), "2/temperature");
}

TEST(ArcoPaths, RootIsTheIdxPathWithoutExtension) {
  EXPECT_EQ(ArcoRoot("/d/visus.idx"), "/d/visus");
  EXPECT_EQ(ArcoRoot("rel/ds.idx"), "rel/ds");
  EXPECT_EQ(ArcoRoot("a.b/c"), "a.b/c");  // a dot in a directory is not an extension
  EXPECT_EQ(ArcoRoot("s3://bucket/x/visus.idx?profile=p"), "s3://bucket/x/visus");
  EXPECT_EQ(ArcoBlockPath("/d/visus", 0, "data", 1), "/d/visus/0/data/0000/0000/0000/0001.bin");
}

TEST(ArcoPaths, ByteSizes) {
  EXPECT_EQ(ParseByteSize("1mb", "--arco"), 1048576);
  EXPECT_EQ(ParseByteSize("1MB", "--arco"), 1048576);
  EXPECT_EQ(ParseByteSize("512kb", "--arco"), 524288);
  EXPECT_EQ(ParseByteSize("1.5m", "--arco"), 1572864);
  EXPECT_EQ(ParseByteSize("2gb", "--arco"), int64_t{2} << 30);
  EXPECT_EQ(ParseByteSize("65536", "--arco"), 65536);
  EXPECT_EQ(ParseByteSize(" 64 KiB ", "--arco"), 65536);
  for (const char* bad : {"", "mb", "1tb", "-1mb", "0", "1.2.3mb", "one"})
    EXPECT_HZIO_ERROR(ParseByteSize(bad, "--arco"), ErrorCode::kInvalidArgument, "--arco expects a size", bad);
}

TEST(ArcoPaths, MaxFieldBytes) {
  IdxHeader h;
  h.fields.push_back(Field::Parse("a uint8[3]", 6));
  h.fields.push_back(Field::Parse("b float64", 6));
  EXPECT_EQ(MaxFieldBytes(h), 8);
}

}  // namespace
}  // namespace hzio
