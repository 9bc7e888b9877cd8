// Byte sizes as users write them (util/strings.h ParseByteSize: --cache-size, HZIO_CACHE_SIZE).
#include "hzio/util/strings.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace hzio {
namespace {

TEST(ParseByteSize, SuffixesAndCase) {
  EXPECT_EQ(ParseByteSize("4096", "x"), 4096);
  EXPECT_EQ(ParseByteSize("512k", "x"), 512 << 10);
  EXPECT_EQ(ParseByteSize("64M", "x"), int64_t{64} << 20);
  EXPECT_EQ(ParseByteSize(" 20gb ", "x"), int64_t{20} << 30);
  EXPECT_EQ(ParseByteSize("1t", "x"), int64_t{1} << 40);
  EXPECT_EQ(ParseByteSize("100b", "x"), 100);
}

TEST(ParseByteSize, MistakesNameTheOption) {
  for (const char* bad : {"", "g", "-5", "0", "1.5g", "10x", "99999999999t"})
    EXPECT_HZIO_ERROR(ParseByteSize(bad, "--cache-size"), ErrorCode::kInvalidArgument, "--cache-size", "not a size");
}

}  // namespace
}  // namespace hzio
