#include "hzio/format/dtype.h"

#include <gtest/gtest.h>

#include "hzio/util/error.h"

namespace hzio {
namespace {

// idx-format.md §1.4 canonical forms.
TEST(DType, CanonicalForms) {
  EXPECT_EQ(DType::Parse("3*UINT8").ToString(), "uint8[3]");
  EXPECT_EQ(DType::Parse("float32[1]").ToString(), "float32");
  EXPECT_EQ(DType::Parse("float64 [ 2 ]").ToString(), "float64[2]");
  EXPECT_EQ(DType::Parse("uint1").ToString(), "int1");
  EXPECT_EQ(DType::Parse("int16").ToString(), "int16");
  EXPECT_EQ(DType::Parse("uint8[3]").components(), 3);
  EXPECT_EQ(DType::Parse("float64[11]").SampleBytes(), 88);
  EXPECT_EQ(DType::Parse("int1").BytesFor(9), 2);
  EXPECT_EQ(DType::Parse("float32").NumpyDescr(), "<f4");
  EXPECT_EQ(DType::Parse("uint8").NumpyDescr(), "|u1");
}

TEST(DType, RejectsGarbageNamingIt) {
  for (const char* bad : {"", "float", "float16", "uint", "int8[", "int8[0]", "0*int8", "double", "uint8x"}) {
    try {
      DType::Parse(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("dtype '" + std::string(bad) + "'"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace hzio
