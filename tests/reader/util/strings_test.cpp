// Byte sizes as users write them (util/strings.h ParseByteSize: --cache-size, HZIO_CACHE_SIZE) and
// numbers as OpenVisus writes them in headers (FormatFixed6).
#include "hzio/util/strings.h"

#include <gtest/gtest.h>

#include <cfloat>

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

TEST(FormatFixed6, SixDecimalsLikePrintf) {
  EXPECT_EQ(FormatFixed6(-10), "-10.000000");
  EXPECT_EQ(FormatFixed6(0.5), "0.500000");
}

// A field's max(...) of 4.4e93 once came back cut to 63 characters, so a header no longer
// round-tripped through its own text (found by idx_header_fuzzer).
TEST(FormatFixed6, HugeValuesKeepEveryDigitAndReadBackExactly) {
  for (double v : {4.444444444444444e93, 1e57, -DBL_MAX, DBL_MAX}) {
    const std::string text = FormatFixed6(v);
    EXPECT_EQ(text.substr(text.size() - 7), ".000000") << text;
    EXPECT_EQ(ParseDouble(text, "v"), v) << text;
  }
  EXPECT_EQ(FormatFixed6(DBL_MAX).size(), 316u);
}

}  // namespace
}  // namespace hzio
