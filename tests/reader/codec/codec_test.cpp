#include "hzio/codec/codec.h"

#include <gtest/gtest.h>

#include <numeric>

#include "hzio/util/error.h"

namespace hzio {
namespace {

TEST(Codec, RoundTripsAndStreamFormats) {
  std::vector<uint8_t> data(4096);
  std::iota(data.begin(), data.end(), 0);
  for (const char* spec : {"raw", "", "zip", "zip-Z_BEST_SPEED", "zip-Z_BEST_COMPRESSION", "lz4"}) {
    CodecSpec s = CodecSpec::Parse(spec);
    std::vector<uint8_t> enc = Encode(s, data.data(), data.size());
    std::vector<uint8_t> dec(data.size());
    Decode(s.codec, enc.data(), enc.size(), dec.data(), dec.size(), spec);
    EXPECT_EQ(dec, data) << spec;
  }
  std::vector<uint8_t> zip = Encode(CodecSpec::Parse("zip"), data.data(), data.size());
  EXPECT_EQ(zip[0], 0x78);  // zlib stream, not gzip or raw deflate (§5)
  EXPECT_EQ((zip[0] * 256 + zip[1]) % 31, 0);  // a valid zlib header check
  EXPECT_EQ(CodecSpec::Parse("zip-Z_BEST_SPEED").zip_level, 1);
  EXPECT_EQ(CodecSpec::Parse("zip-Z_DEFAULT_COMPRESSION").zip_level, 6);
  EXPECT_EQ(CodecSpec::Parse("zip-Z_BEST_COMPRESSION").zip_level, 9);
  EXPECT_EQ(CodecSpec::Parse("lz4").codec, Codec::kLz4);
  EXPECT_EQ(CodecSpec::Parse("zfp-reversible").codec, Codec::kZfp);
}

TEST(Codec, WrongSizesAndGarbageAreCorrupt) {
  std::vector<uint8_t> data(1000, 7);
  std::vector<uint8_t> out(999);
  for (Codec c : {Codec::kRaw, Codec::kZip, Codec::kLz4}) {
    std::vector<uint8_t> enc = Encode(CodecSpec{c, 6}, data.data(), data.size());
    try {
      Decode(c, enc.data(), enc.size(), out.data(), out.size(), "block 9");
      ADD_FAILURE() << CodecName(c);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
      EXPECT_NE(std::string(e.what()).find("block 9"), std::string::npos);
    }
    std::vector<uint8_t> garbage(enc.size(), 0xAB);
    std::vector<uint8_t> full(1000);
    if (c != Codec::kRaw) EXPECT_THROW(Decode(c, garbage.data(), garbage.size(), full.data(), full.size(), "g"), Error);
  }
  EXPECT_THROW(CodecFromCode(5, "x"), Error);
  std::vector<uint8_t> one(8);
  EXPECT_THROW(Decode(Codec::kZfp, one.data(), one.size(), one.data(), one.size(), "z"), Error);
  EXPECT_THROW(Encode(CodecSpec{Codec::kPng, 6}, one.data(), one.size()), Error);
}

}  // namespace
}  // namespace hzio
