// jpg blocks (idx-format.md §5, §8.14, §9): lossy grey/RGB, rows bottom-up, strict checks.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codec_test_util.h"
#include "hzio/codec/codec.h"

namespace hzio {
namespace {

using testing::DecodeShaped;
using testing::EncodeShaped;
using testing::ExpectError;
using testing::ReadJpegPlain;
using testing::SmoothImage;

DType U8(int components) { return DType(DType::Kind::kUnsigned, 8, components); }

int MaxError(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  int worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(int{a[i]} - int{b[i]}));
  return worst;
}

TEST(JpgCodec, RoundTripsWithinJpegError) {
  for (int ch : {1, 3}) {
    for (Point dims : {Point{32, 24}, Point{17, 1, 9}, Point{64, 64}}) {
      SCOPED_TRACE(dims.ToString() + " x" + std::to_string(ch));
      const SampleShape shape{U8(ch), dims};
      const int64_t w = dims[0], h = dims.Product() / w;
      const std::vector<uint8_t> data = SmoothImage(w, h, ch);
      const std::vector<uint8_t> superb = EncodeShaped("jpg-JPEG_QUALITYSUPERB-JPEG_SUBSAMPLING_444", data, shape);
      // OpenVisus decodes with libjpeg's fast integer IDCT (JPEG_FAST), a few levels off at q100.
      EXPECT_LE(MaxError(DecodeShaped("jpg", superb, shape, data.size()), data), 8);
      const std::vector<uint8_t> normal = EncodeShaped("jpg", data, shape);
      EXPECT_LE(MaxError(DecodeShaped("jpg", normal, shape, data.size()), data), 12);
      const std::vector<uint8_t> bad = EncodeShaped("jpg-JPEG_QUALITYBAD", data, shape);
      EXPECT_LT(bad.size(), superb.size());
      const std::vector<uint8_t> progressive = EncodeShaped("jpg-JPEG_PROGRESSIVE", data, shape);
      EXPECT_LE(MaxError(DecodeShaped("jpg", progressive, shape, data.size()), data), 12);
    }
  }
}

// Checked with libjpeg's own decoder: the JPEG's first row is the block's highest y.
TEST(JpgCodec, RowsAreBottomUp) {
  const int64_t w = 16, h = 16;
  std::vector<uint8_t> data(static_cast<size_t>(w * h * 3));
  for (int64_t y = 0; y < h; ++y)  // y < 8 dark red, y >= 8 light green
    for (int64_t x = 0; x < w; ++x) {
      uint8_t* p = &data[static_cast<size_t>((y * w + x) * 3)];
      p[0] = y < 8 ? 160 : 30;
      p[1] = y < 8 ? 20 : 220;
      p[2] = 40;
    }
  const std::vector<uint8_t> jpg = EncodeShaped("jpg-JPEG_QUALITYSUPERB", data, SampleShape{U8(3), Point{w, h}});
  const testing::PlainImage img = ReadJpegPlain(jpg);
  ASSERT_EQ(img.width, w);
  ASSERT_EQ(img.height, h);
  ASSERT_EQ(img.channels, 3);
  EXPECT_NEAR(img.top_down[0], 30, 8);   // top-left of the file: y = 15, green
  EXPECT_NEAR(img.top_down[1], 220, 8);
  const size_t last = static_cast<size_t>((h * w - 1) * 3);
  EXPECT_NEAR(img.top_down[last], 160, 8);  // bottom-right of the file: y = 0, red
  EXPECT_NEAR(img.top_down[last + 1], 20, 8);
}

TEST(JpgCodec, CorruptPayloadsAreCorruptNamingTheBlock) {
  const SampleShape shape{U8(1), Point{24, 16}};
  const std::vector<uint8_t> data = SmoothImage(24, 16, 1);
  const std::vector<uint8_t> jpg = EncodeShaped("jpg", data, shape);
  for (size_t n = 0; n + 2 < jpg.size(); n += 7) {  // truncated anywhere before the end marker
    SCOPED_TRACE(n);
    const std::vector<uint8_t> cut(jpg.begin(), jpg.begin() + static_cast<std::ptrdiff_t>(n));
    ExpectError([&] { (void)DecodeShaped("jpg", cut, shape, data.size(), "f.bin: block 9"); }, ErrorCode::kCorrupt,
                {"f.bin: block 9", "jpg block"});
  }
  std::vector<uint8_t> garbage(500, 0x5A);
  ExpectError([&] { (void)DecodeShaped("jpg", garbage, shape, data.size(), "blk"); }, ErrorCode::kCorrupt,
              {"blk", "Not a JPEG"});
  ExpectError([&] { (void)DecodeShaped("jpg", jpg, SampleShape{U8(1), Point{16, 24}}, data.size(), "blk"); },
              ErrorCode::kCorrupt, {"24x16 pixels", "block 16x24"});
  ExpectError([&] { (void)DecodeShaped("jpg", jpg, SampleShape{U8(3), Point{24, 16}}, data.size() * 3, "blk"); },
              ErrorCode::kCorrupt, {"1 components", "dtype 3"});
  std::vector<uint8_t> out(data.size() + 1);  // legacy call: only the byte count is known
  ExpectError([&] { Decode(Codec::kJpg, jpg.data(), jpg.size(), out.data(), out.size(), "legacy"); },
              ErrorCode::kCorrupt, {"legacy", "bytes of pixels"});
  out.resize(data.size());
  Decode(Codec::kJpg, jpg.data(), jpg.size(), out.data(), out.size(), "legacy");
  EXPECT_EQ(out, DecodeShaped("jpg", jpg, shape, data.size()));
}

TEST(JpgCodec, DtypesAndShapesJpgCannotHoldAreUnsupported) {
  const std::vector<uint8_t> bytes(64 * 4);
  ExpectError([&] { (void)EncodeShaped("jpg", bytes, SampleShape{U8(4), Point{8, 8}}); }, ErrorCode::kUnsupported,
              {"jpg blocks hold uint8 or uint8[3] samples", "not uint8[4]"});
  ExpectError([&] { (void)EncodeShaped("jpg", bytes, SampleShape{DType::Parse("int16"), Point{16, 8}}); },
              ErrorCode::kUnsupported, {"not int16"});
  ExpectError([&] { (void)EncodeShaped("jpg", bytes, SampleShape{U8(1), Point{4, 8, 8}}); }, ErrorCode::kUnsupported,
              {"2-D images"});
  std::vector<uint8_t> wide(70000);
  ExpectError([&] { (void)EncodeShaped("jpg", wide, SampleShape{U8(1), Point{70000, 1}}); }, ErrorCode::kUnsupported,
              {"65535"});
}

}  // namespace
}  // namespace hzio
