// Client-side pieces of remote datasets (reader/src/hzio/remote/): dataset URLs and request URLs
// (idx-format.md §7.1, §7.9), composite replies (§7.5) and array parts (§7.6.1). Pure: no sockets.
#include <gtest/gtest.h>

#include "handlers/array_body.h"
#include "hzio/remote/mod_visus_reply.h"
#include "hzio/remote/mod_visus_url.h"
#include "hzio/util/error.h"

namespace hzio::internal_remote {
namespace {

TEST(ModVisusUrl, ParsesAndStripsClientOnlyParameters) {
  ModVisusUrl u = ModVisusUrl::Parse("http://127.0.0.1:8080/mod_visus?dataset=rgb&cached=1&compression=lz4&x=a%20b");
  EXPECT_EQ(u.endpoint, "http://127.0.0.1:8080/mod_visus");
  EXPECT_EQ(u.dataset(), "rgb");
  EXPECT_TRUE(u.cached);
  EXPECT_EQ(u.params.count("cached"), 0u);
  EXPECT_EQ(u.params.at("x"), "a b");
  EXPECT_FALSE(ModVisusUrl::Parse("http://h/mod_visus?dataset=a&cached=0").cached);
  EXPECT_EQ(ModVisusUrl::Parse("http://h:1?dataset=a").endpoint, "http://h:1/mod_visus");
}

TEST(ModVisusUrl, RequestsEncodeLikeTheOpenVisusClient) {
  ModVisusUrl u = ModVisusUrl::Parse("http://h:1/mod_visus?dataset=rgb");
  EXPECT_EQ(u.Request({{"action", "boxquery"}, {"box", "0 99 0 59"}, {"time", "0.000000"}}),
            "http://h:1/mod_visus?action=boxquery&box=0%2099%200%2059&dataset=rgb&time=0%2E000000");
}

TEST(ModVisusUrl, RejectsUrlsWithoutADataset) {
  EXPECT_THROW(ModVisusUrl::Parse("http://h:1/mod_visus"), Error);
  EXPECT_THROW(ModVisusUrl::Parse("ftp://h/mod_visus?dataset=x"), Error);
}

// Builds a reply with the server's own composer, then splits it back.
HttpResponse AsClientSees(const server::Reply& r) {
  HttpResponse h;
  h.status = r.status;
  for (const auto& [k, v] : r.headers) {
    std::string lower;
    for (char c : k) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    h.headers[lower] = v;
  }
  h.body = r.body;
  return h;
}

TEST(DecomposeReply, SplitsPartsInOrderAndKeepsFailedOnes) {
  const uint8_t a[4] = {1, 2, 3, 4}, b[4] = {9, 8, 7, 6};
  DType u8 = DType::Parse("uint8");
  std::vector<server::Reply> parts = {
      server::ArrayBodyReply("zip", u8, Point{2, 2}, true, a, 4),
      server::VisusError(404, "block_query->executeAndWait failed", "x.cpp", 1),
      server::ArrayBodyReply("lz4", u8, Point{4, 1}, false, b, 4)};
  std::vector<HttpResponse> split = DecomposeReply(AsClientSees(server::ComposeReplies(parts)), 3);
  ASSERT_EQ(split.size(), 3u);
  EXPECT_EQ(split[0].status, 200);
  EXPECT_EQ(split[1].status, 404);
  EXPECT_EQ(split[2].status, 200);
  EXPECT_EQ(split[0].Header("visus-layout"), "hzorder");
  EXPECT_EQ(split[2].Header("visus-layout"), "");
  uint8_t out[4];
  DecodeArrayPart(split[0], u8, Point{2, 2}, out, 4, "part 0");
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), std::vector<uint8_t>(a, a + 4));
  DecodeArrayPart(split[2], u8, Point{4, 1}, out, 4, "part 2");
  EXPECT_EQ(std::vector<uint8_t>(out, out + 4), std::vector<uint8_t>(b, b + 4));
  // A plain reply is its own single part; a short composite leaves the missing parts failed.
  EXPECT_EQ(DecomposeReply(AsClientSees(parts[0]), 1).size(), 1u);
  std::vector<HttpResponse> short_split = DecomposeReply(AsClientSees(server::ComposeReplies({parts[0]})), 3);
  EXPECT_EQ(short_split[2].status, 0);
}

TEST(DecodeArrayPart, ChecksDtypeAndSampleCount) {
  const uint8_t a[4] = {1, 2, 3, 4};
  HttpResponse r = AsClientSees(server::ArrayBodyReply("", DType::Parse("uint8"), Point{2, 2}, false, a, 4));
  uint8_t out[4];
  EXPECT_THROW(DecodeArrayPart(r, DType::Parse("uint8"), Point{4, 2}, out, 4, "x"), Error);
  EXPECT_THROW(DecodeArrayPart(r, DType::Parse("int8"), Point{2, 2}, out, 4, "x"), Error);
  EXPECT_NO_THROW(DecodeArrayPart(r, DType::Parse("uint8"), Point{2, 2, 1}, out, 4, "x"));  // unit axis
  r.body.resize(3);
  EXPECT_THROW(DecodeArrayPart(r, DType::Parse("uint8"), Point{2, 2}, out, 4, "x"), Error);
}

}  // namespace
}  // namespace hzio::internal_remote
