#include "http/query_string.h"

#include <gtest/gtest.h>

#include "hzio/util/error.h"

namespace hzio::server {
namespace {

TEST(QueryString, DecodesPercentButNotPlus) {  // idx-format.md §7.1
  QueryString q = QueryString::ParseTarget("/mod_visus?box=0%2099%200%2059&time=0%2E000000&x=a+b");
  EXPECT_EQ(q.path(), "/mod_visus");
  EXPECT_EQ(q.GetOr("box", ""), "0 99 0 59");
  EXPECT_EQ(q.GetOr("time", ""), "0.000000");
  EXPECT_EQ(q.GetOr("x", ""), "a+b");
}

TEST(QueryString, KeyWithoutValueAndLastWins) {
  QueryString q = QueryString::ParseTarget("/p?flag&a=1&a=2&&b=");
  EXPECT_TRUE(q.Has("flag"));
  EXPECT_EQ(q.GetOr("flag", "x"), "");
  EXPECT_EQ(q.GetOr("a", ""), "2");
  EXPECT_TRUE(q.Has("b"));
  EXPECT_FALSE(q.Has("c"));
}

TEST(QueryString, RejectsMalformedEscapesAndRelativeTargets) {
  EXPECT_THROW(QueryString::ParseTarget("/p?a=%zz"), Error);
  EXPECT_THROW(QueryString::ParseTarget("/p?a=%2"), Error);
  EXPECT_THROW(QueryString::ParseTarget("http://x/p"), Error);
  EXPECT_THROW(QueryString::ParseTarget(""), Error);
}

TEST(QueryString, PercentEncodeLikeOpenVisus) {
  EXPECT_EQ(PercentEncode("0 99.5-x/y"), "0%2099%2E5%2Dx%2Fy");
  EXPECT_EQ(PercentDecode(PercentEncode("a b&c=d%")), "a b&c=d%");
}

}  // namespace
}  // namespace hzio::server
