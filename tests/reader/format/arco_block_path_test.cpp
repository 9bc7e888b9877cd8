// ARCO block naming (idx-format.md §4.12) against the paths OpenVisus's DiskAccess makes
// (`visus/0/data/0000/0000/0000/0001.bin`), and the part-directory split the local reader uses.
#include "hzio/format/arco_block_path.h"

#include <gtest/gtest.h>

#include "hzio/access/arco_parts.h"

namespace hzio {
namespace {

TEST(ArcoBlockPath, SixteenHexDigitsInFourGroups) {
  EXPECT_EQ(ArcoBlockPath("visus", 0, "data", 1), "visus/0/data/0000/0000/0000/0001.bin");
  EXPECT_EQ(ArcoBlockPath("visus", 0, "data", 0x1234abcdULL), "visus/0/data/0000/0000/1234/abcd.bin");
  EXPECT_EQ(ArcoBlockPath("/d/v", 17, "temperature", 0xfedcba9876543210ULL),
            "/d/v/17/temperature/fedc/ba98/7654/3210.bin");
}

TEST(ArcoBlockPath, FieldNamesLoseTheirSpaces) {
  EXPECT_EQ(ArcoBlockPath("v", 2, "my field", 0), "v/2/myfield/0000/0000/0000/0000.bin");
}

TEST(ArcoParts, SplitOfTheOneNamingFunction) {
  EXPECT_EQ(ArcoRoot("/d/visus.idx"), "/d/visus");
  EXPECT_EQ(ArcoRoot("rel/ds.idx"), "rel/ds");
  EXPECT_EQ(ArcoRoot("a.b/c"), "a.b/c");  // a dot in a directory is not an extension
  EXPECT_EQ(ArcoPartDirectory("/d/visus", 3, "my field"), "/d/visus/3/myfield");
  EXPECT_EQ(ArcoBlockInPart(0x1234abcdULL), "0000/0000/1234/abcd.bin");
  for (uint64_t b : {uint64_t{0}, uint64_t{77}, ~uint64_t{0}})
    EXPECT_EQ(ArcoPartDirectory("/r", 5, "f g") + "/" + ArcoBlockInPart(b), ArcoBlockPath("/r", 5, "f g", b));
}

}  // namespace
}  // namespace hzio
