// CodecSpec parsing (idx-format.md §5): zfp-<encode>-<decode> modes, png/jpg options, ForBlock,
// StoresRawBlocks.
#include <gtest/gtest.h>

#include "codec_test_util.h"
#include "hzio/codec/codec.h"

namespace hzio {
namespace {

using testing::ExpectError;
using Kind = ZfpMode::Kind;

ZfpMode Precision(int p) { return ZfpMode{Kind::kPrecision, p, 0}; }
ZfpMode Accuracy(double a) { return ZfpMode{Kind::kAccuracy, 64, a}; }

TEST(CodecSpec, ZfpSpecsOfSection5) {
  struct Case {
    const char* spec;
    ZfpMode encode, decode;
  } cases[] = {
      {"zfp", ZfpMode{}, Precision(64)},  // bare zfp = zfp-reversible-64
      {"zfp-reversible-reversible", ZfpMode{}, ZfpMode{}},
      {"zfp-precision=32-precision=16", Precision(32), Precision(16)},
      {"zfp-16-16", Precision(16), Precision(16)},              // bare integer = precision
      {"zfp-0.5-0.25", Accuracy(0.5), Accuracy(0.25)},          // bare decimal = accuracy
      {"zfp-accuracy=0.001-accuracy=0.001", Accuracy(0.001), Accuracy(0.001)},
      {"zfp-accuracy=1e-3-1E-4", Accuracy(0.001), Accuracy(0.0001)},  // '-' of an exponent
      {"zfp-24", Precision(24), Precision(24)},                 // one part: both ways
      {"zfp-REVERSIBLE-64", ZfpMode{}, Precision(64)},
      {"zfp--", ZfpMode{}, ZfpMode{}},                           // empty parts are reversible
  };
  for (const Case& c : cases) {
    CodecSpec s = CodecSpec::Parse(c.spec);
    EXPECT_EQ(s.codec, Codec::kZfp) << c.spec;
    EXPECT_EQ(s.zfp_encode, c.encode) << c.spec << " encode " << s.zfp_encode.ToString();
    EXPECT_EQ(s.zfp_decode, c.decode) << c.spec << " decode " << s.zfp_decode.ToString();
    EXPECT_EQ(s.Name(), "zfp");
  }
  EXPECT_EQ(ZfpMode{}.ToString(), "reversible");
  EXPECT_EQ(Precision(20).ToString(), "precision=20");
  EXPECT_EQ(Accuracy(0.001).ToString(), "accuracy=0.001");
  EXPECT_EQ(Accuracy(1e-5).ToString(), "accuracy=0.00001");  // no '-' for OpenVisus to split on
  for (ZfpMode m : {ZfpMode{}, Precision(7), Accuracy(2.5e-7)})  // ToString reads back
    EXPECT_EQ(CodecSpec::Parse("zfp-" + m.ToString()).zfp_encode, m) << m.ToString();
}

TEST(CodecSpec, BadZfpSpecsNameTheSpec) {
  for (const char* bad : {"zfp-foo", "zfp-precision=0", "zfp-precision=65", "zfp-accuracy=0", "zfp-accuracy=-1",
                          "zfp-1-2-3", "zfpx", "zfp-precision=x-1", "zfp-accuracy=inf"}) {
    SCOPED_TRACE(bad);
    ExpectError([&] { (void)CodecSpec::Parse(bad); }, ErrorCode::kInvalidArgument, {"'" + std::string(bad) + "'"});
  }
  ExpectError([] { (void)CodecSpec::Parse("zfp-precision=99"); }, ErrorCode::kInvalidArgument, {"1 to 64"});
  ExpectError([] { (void)CodecSpec::Parse("zfp-0.0"); }, ErrorCode::kInvalidArgument, {"above 0"});
}

TEST(CodecSpec, PngAndJpgOptions) {
  EXPECT_EQ(CodecSpec::Parse("png").png_level, 6);
  EXPECT_EQ(CodecSpec::Parse("png-PNG_Z_BEST_SPEED").png_level, 1);
  EXPECT_EQ(CodecSpec::Parse("png-PNG_Z_BEST_COMPRESSION").png_level, 9);
  EXPECT_EQ(CodecSpec::Parse("png-PNG_Z_NO_COMPRESSION").png_level, 0);
  CodecSpec j = CodecSpec::Parse("jpg");
  EXPECT_EQ(j.codec, Codec::kJpg);
  EXPECT_EQ(j.jpg_quality, 75);
  EXPECT_EQ(j.jpg_subsampling, JpgSubsampling::k420);
  EXPECT_FALSE(j.jpg_progressive);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYSUPERB").jpg_quality, 100);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYGOOD").jpg_quality, 75);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYNORMAL").jpg_quality, 50);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYAVERAGE").jpg_quality, 25);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYBAD").jpg_quality, 10);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_QUALITYSUPERB-JPEG_QUALITYNORMAL").jpg_quality, 50);  // lowest wins
  CodecSpec k = CodecSpec::Parse("jpg-JPEG_SUBSAMPLING_444-JPEG_PROGRESSIVE-JPEG_OPTIMIZE");
  EXPECT_EQ(k.jpg_subsampling, JpgSubsampling::k444);
  EXPECT_TRUE(k.jpg_progressive);
  EXPECT_TRUE(k.jpg_optimize);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_SUBSAMPLING_422").jpg_subsampling, JpgSubsampling::k422);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_SUBSAMPLING_411").jpg_subsampling, JpgSubsampling::k411);
  EXPECT_EQ(CodecSpec::Parse("jpg-JPEG_UNKNOWN_OPTION").jpg_quality, 75);  // ignored, as OpenVisus does
}

TEST(CodecSpec, ForBlockTakesTheFieldsZfpSpec) {
  CodecSpec a = CodecSpec::ForBlock(Codec::kZfp, "zfp-precision=20-precision=20");
  EXPECT_EQ(a.codec, Codec::kZfp);
  EXPECT_EQ(a.zfp_encode, Precision(20));
  // A zfp block in a field whose default is not zfp (per-level codecs): bare zfp's modes.
  CodecSpec b = CodecSpec::ForBlock(Codec::kZfp, "zip");
  EXPECT_EQ(b.codec, Codec::kZfp);
  EXPECT_EQ(b.zfp_encode, ZfpMode{});
  EXPECT_EQ(CodecSpec::ForBlock(Codec::kPng, "zfp-16-16").codec, Codec::kPng);
  EXPECT_EQ(CodecSpec::ForBlock(Codec::kRaw, "zip").codec, Codec::kRaw);
}

TEST(CodecSpec, StoresRawBlocksFollowsTheParsedCodec) {
  for (const char* raw : {"", "raw", "bin", "unknown-codec"}) {
    Field f;
    f.compression = raw;
    EXPECT_TRUE(StoresRawBlocks(f)) << raw;
  }
  for (const char* coded : {"zip", "lz4", "zfp-precision=32", "png", "jpg"}) {
    Field f;
    f.compression = coded;
    EXPECT_FALSE(StoresRawBlocks(f)) << coded;
  }
}

}  // namespace
}  // namespace hzio
