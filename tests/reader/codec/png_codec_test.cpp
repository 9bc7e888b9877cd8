// png blocks (idx-format.md §5, §8.14): lossless, grey/RGB/RGBA, rows bottom-up, strict checks.
#include <gtest/gtest.h>

#include <numeric>

#include "codec_test_util.h"
#include "hzio/codec/codec.h"

namespace hzio {
namespace {

using testing::DecodeShaped;
using testing::EncodeShaped;
using testing::ExpectError;
using testing::ReadPngPlain;
using testing::SmoothImage;
using testing::WritePngPlain;

DType U8(int components) { return DType(DType::Kind::kUnsigned, 8, components); }

std::vector<uint8_t> Counting(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + i / 13);
  return v;
}

TEST(PngCodec, LosslessForGreyRgbRgbaAndUnitAxes) {
  struct Case {
    int components;
    Point dims;
  } cases[] = {{1, Point{16, 8}}, {3, Point{5, 7}}, {4, Point{8, 4}}, {1, Point{4, 1, 8}},
               {3, Point{1, 1, 6}}, {1, Point{1, 1}}, {4, Point{1, 32, 1}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dims.ToString() + " x" + std::to_string(c.components));
    const SampleShape shape{U8(c.components), c.dims};
    const std::vector<uint8_t> data = Counting(static_cast<size_t>(c.dims.Product() * c.components));
    for (const char* spec : {"png", "png-PNG_Z_BEST_SPEED", "png-PNG_Z_NO_COMPRESSION", "png-PNG_Z_BEST_COMPRESSION"}) {
      const std::vector<uint8_t> png = EncodeShaped(spec, data, shape);
      EXPECT_EQ(DecodeShaped("png", png, shape, data.size()), data) << spec;
    }
  }
}

// The file itself, read by libpng's simplified API: colour type, size, and rows bottom-up (the
// first image row is the block's highest y), channels in R,G,B(,A) order.
TEST(PngCodec, RowsAreBottomUpAndChannelsInOrder) {
  const int64_t w = 6, h = 4;
  for (int ch : {1, 3, 4}) {
    const std::vector<uint8_t> data = Counting(static_cast<size_t>(w * h * ch));
    const std::vector<uint8_t> png = EncodeShaped("png", data, SampleShape{U8(ch), Point{w, 1, h}});
    ASSERT_GT(png.size(), 26u);
    EXPECT_EQ(png[25], ch == 1 ? 0 : ch == 3 ? 2 : 6) << "IHDR colour type";
    EXPECT_EQ(png[24], 8) << "IHDR bit depth";
    const testing::PlainImage img = ReadPngPlain(png);
    EXPECT_EQ(img.width, w);
    EXPECT_EQ(img.height, h);
    ASSERT_EQ(img.channels, ch);
    for (int64_t y = 0; y < h; ++y)
      for (int64_t i = 0; i < w * ch; ++i)
        ASSERT_EQ(img.top_down[static_cast<size_t>((h - 1 - y) * w * ch + i)], data[static_cast<size_t>(y * w * ch + i)])
            << "row " << y << " byte " << i;
  }
  // And the other way: a PNG made elsewhere (top row = highest y) decodes into rows y = 0 first.
  const uint8_t top_down[2][3] = {{9, 8, 7}, {1, 2, 3}};
  const std::vector<uint8_t> png = WritePngPlain(3, 2, PNG_FORMAT_GRAY, top_down);
  EXPECT_EQ(DecodeShaped("png", png, SampleShape{U8(1), Point{3, 2}}, 6), (std::vector<uint8_t>{1, 2, 3, 9, 8, 7}));
}

TEST(PngCodec, LegacyDecodeTakesTheImagesGeometry) {
  const std::vector<uint8_t> data = Counting(5 * 3 * 3);
  const std::vector<uint8_t> png = EncodeShaped("png", data, SampleShape{U8(3), Point{5, 3}});
  std::vector<uint8_t> out(data.size());
  Decode(Codec::kPng, png.data(), png.size(), out.data(), out.size(), "legacy");
  EXPECT_EQ(out, data);
  std::vector<uint8_t> small(data.size() - 3);
  ExpectError([&] { Decode(Codec::kPng, png.data(), png.size(), small.data(), small.size(), "legacy block 4"); },
              ErrorCode::kCorrupt, {"legacy block 4", "bytes of pixels"});
  ExpectError([&] { (void)Encode(CodecSpec::Parse("png"), data.data(), data.size()); }, ErrorCode::kUnsupported,
              {"png", "block shape"});
}

TEST(PngCodec, CorruptPayloadsAreCorruptNamingTheBlock) {
  const SampleShape shape{U8(3), Point{16, 16}};
  const std::vector<uint8_t> data = SmoothImage(16, 16, 3);
  const std::vector<uint8_t> png = EncodeShaped("png", data, shape);
  // Every truncation: never a crash, always kCorrupt naming the block.
  for (size_t n = 0; n < png.size(); ++n) {
    SCOPED_TRACE(n);
    const std::vector<uint8_t> cut(png.begin(), png.begin() + static_cast<std::ptrdiff_t>(n));
    ExpectError([&] { (void)DecodeShaped("png", cut, shape, data.size(), "f.bin: block 3"); }, ErrorCode::kCorrupt,
                {"f.bin: block 3", "png block"});
  }
  std::vector<uint8_t> garbage(300);
  std::iota(garbage.begin(), garbage.end(), 0);
  ExpectError([&] { (void)DecodeShaped("png", garbage, shape, data.size(), "blk"); }, ErrorCode::kCorrupt,
              {"blk", "png block"});
  std::vector<uint8_t> flipped = png;  // one bit of the image data: a CRC or zlib error
  flipped[png.size() / 2] ^= 0x10;
  ExpectError([&] { (void)DecodeShaped("png", flipped, shape, data.size(), "blk"); }, ErrorCode::kCorrupt, {"blk"});
  // A valid PNG of the wrong size or colour type for the block.
  ExpectError([&] { (void)DecodeShaped("png", png, SampleShape{U8(3), Point{8, 32}}, data.size(), "blk"); },
              ErrorCode::kCorrupt, {"16x16 pixels", "block 8x32"});
  ExpectError([&] { (void)DecodeShaped("png", png, SampleShape{U8(1), Point{16, 16}}, 256, "blk"); },
              ErrorCode::kCorrupt, {"3 channels", "dtype 1"});
  const std::vector<uint16_t> deep(12, 500);
  const std::vector<uint8_t> png16 = WritePngPlain(4, 3, PNG_FORMAT_LINEAR_Y, deep.data());
  ExpectError([&] { (void)DecodeShaped("png", png16, SampleShape{U8(1), Point{4, 3}}, 12, "blk"); },
              ErrorCode::kCorrupt, {"16-bit"});
  const uint8_t ga[4] = {1, 2, 3, 4};
  const std::vector<uint8_t> grey_alpha = WritePngPlain(2, 1, PNG_FORMAT_GA, ga);
  ExpectError([&] { (void)DecodeShaped("png", grey_alpha, SampleShape{U8(1), Point{2, 1}}, 2, "blk"); },
              ErrorCode::kCorrupt, {"colour type 4"});
}

TEST(PngCodec, DtypesAndShapesPngCannotHoldAreUnsupported) {
  const std::vector<uint8_t> four(64 * 4);
  ExpectError([&] { (void)EncodeShaped("png", four, SampleShape{DType::Parse("float32"), Point{8, 8}}); },
              ErrorCode::kUnsupported, {"png blocks hold uint8", "not float32"});
  ExpectError([&] { (void)EncodeShaped("png", four, SampleShape{DType::Parse("uint16[2]"), Point{8, 8}}); },
              ErrorCode::kUnsupported, {"not uint16[2]"});
  ExpectError([&] { (void)EncodeShaped("png", four, SampleShape{U8(2), Point{16, 8}}); }, ErrorCode::kUnsupported,
              {"not uint8[2]"});
  ExpectError([&] { (void)EncodeShaped("png", four, SampleShape{U8(1), Point{4, 8, 8}}); }, ErrorCode::kUnsupported,
              {"2-D images", "(4,8,8)"});
  ExpectError([&] { (void)DecodeShaped("png", four, SampleShape{U8(1), Point{4, 8, 8}}, 256); },
              ErrorCode::kUnsupported, {"2-D images"});
  ExpectError([&] { CheckCodecFits(CodecSpec::Parse("png"), SampleShape{U8(4), Point{2, 2, 2}}, "x.idx"); },
              ErrorCode::kUnsupported, {"x.idx", "2-D images"});
  CheckCodecFits(CodecSpec::Parse("png"), SampleShape{U8(4), Point{2, 1, 2}}, "x.idx");
  ExpectError([&] { (void)EncodeShaped("png", four, SampleShape{U8(1), Point{16, 8}}); }, ErrorCode::kInvalidArgument,
              {"256 bytes of input", "128 samples of uint8"});
}

}  // namespace
}  // namespace hzio
