// Content-Range parsing and the bytes of a range in 206 and 200 responses (byte_range.h).
#include "hzio/remote/byte_range.h"

#include <gtest/gtest.h>

namespace hzio::internal_remote {
namespace {

HttpResponse Response(long status, std::string body, std::string content_range = "") {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  if (!content_range.empty()) r.headers["content-range"] = content_range;
  return r;
}

TEST(ByteRange, ParsesContentRange) {
  auto r = ParseContentRange("bytes 10-19/100");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->first, 10u);
  EXPECT_EQ(r->last, 19u);
  EXPECT_EQ(r->total, 100u);
  r = ParseContentRange("bytes 0-0/*");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->total);
  for (const char* bad : {"", "bytes", "bytes 5-4/10", "bytes 0-9/9", "items 0-1/2", "bytes a-b/c", "bytes 0-1"})
    EXPECT_FALSE(ParseContentRange(bad)) << bad;
}

TEST(ByteRange, FindsTheRangeIn206And200) {
  const HttpResponse partial = Response(206, "cdef", "bytes 2-5/10");
  EXPECT_EQ(*RangeBytes(partial, 2, 4), "cdef");
  EXPECT_EQ(*RangeBytes(partial, 3, 2), "de");
  EXPECT_FALSE(RangeBytes(partial, 0, 4));
  EXPECT_FALSE(RangeBytes(partial, 4, 4));
  EXPECT_EQ(*ObjectSize(partial), 10u);
  const HttpResponse whole = Response(200, "abcdefghij");  // a server ignoring Range
  EXPECT_EQ(*RangeBytes(whole, 2, 4), "cdef");
  EXPECT_FALSE(RangeBytes(whole, 8, 4));  // the object is shorter than asked for
  EXPECT_EQ(*ObjectSize(whole), 10u);
  // A body shorter than its Content-Range says (a truncated transfer) holds nothing.
  EXPECT_FALSE(RangeBytes(Response(206, "cd", "bytes 2-5/10"), 2, 2));
  EXPECT_FALSE(RangeBytes(Response(404, ""), 0, 0));
}

TEST(ByteRange, Validators) {
  HttpResponse r = Response(200, "x");
  EXPECT_EQ(ObjectValidator(r), "");
  r.headers["last-modified"] = "Mon, 01 Jan 2024 00:00:00 GMT";
  EXPECT_EQ(ObjectValidator(r), "modified:Mon, 01 Jan 2024 00:00:00 GMT");
  EXPECT_EQ(ValidatorPart(ObjectValidator(r), "modified"), "Mon, 01 Jan 2024 00:00:00 GMT");
  EXPECT_EQ(ValidatorPart(ObjectValidator(r), "etag"), "");
  r.headers["etag"] = "\"abc\"";
  EXPECT_EQ(ObjectValidator(r), "etag:\"abc\";modified:Mon, 01 Jan 2024 00:00:00 GMT");
  EXPECT_EQ(ValidatorPart(ObjectValidator(r), "etag"), "\"abc\"");
  EXPECT_EQ(ValidatorPart(ObjectValidator(r), "modified"), "Mon, 01 Jan 2024 00:00:00 GMT");
  r.headers.erase("last-modified");
  EXPECT_EQ(ObjectValidator(r), "etag:\"abc\"");
  EXPECT_EQ(ValidatorPart(ObjectValidator(r), "etag"), "\"abc\"");
}

}  // namespace
}  // namespace hzio::internal_remote
