// The printf templates of headers (format/printf_template.h): what OpenVisus writes formats as
// its sprintf would; anything printf could misread is an error naming the template.
#include "hzio/format/printf_template.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace hzio {
namespace {

TEST(PrintfTemplate, FormatsLikeSprintf) {
  EXPECT_EQ(FormatIntegerTemplate("time_%02d/", 7), "time_07/");
  EXPECT_EQ(FormatIntegerTemplate("%04x.bin", 4660), "1234.bin");
  EXPECT_EQ(FormatIntegerTemplate("%X", 255), "FF");
  EXPECT_EQ(FormatIntegerTemplate("t%-3i|", -5), "t-5 |");
  EXPECT_EQ(FormatIntegerTemplate("100%%_%d", 3), "100%_3");
  EXPECT_EQ(FormatIntegerTemplate("no conversion", 3), "no conversion");
  EXPECT_EQ(FormatIntegerTemplate("", 3), "");
  EXPECT_EQ(FormatIntegerTemplate("%99d", 1).size(), 99u);  // sized by printf's count, not a buffer
}

TEST(PrintfTemplate, AnythingButOneIntegerConversionIsRefusedByName) {
  for (const char* bad : {"%s.bin", "./data/%s.d", "%n", "%ld", "%d%d", "%04x_%d", "%", "a%", "%.5d", "%100d", "%lld"})
    EXPECT_HZIO_ERROR(CheckIntegerTemplate(bad, "time template"), ErrorCode::kInvalidArgument, "time template", bad);
  for (const char* good : {"", "x", "%d", "%04x", "%-2X", "%%", "time_%02d/"})
    EXPECT_NO_THROW(CheckIntegerTemplate(good, "time template")) << good;
}

}  // namespace
}  // namespace hzio
