// zfp blocks (idx-format.md §5, §8.15, §9): raw zfp 1.0 streams in reversible, precision and
// accuracy modes; truncated or mismatched streams are corrupt; what zfp cannot hold is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "codec_test_util.h"
#include "hzio/codec/codec.h"

namespace hzio {
namespace {

using testing::DecodeShaped;
using testing::EncodeShaped;
using testing::ExpectError;

template <typename T>
std::vector<uint8_t> Field(const Point& dims) {
  std::vector<uint8_t> bytes(static_cast<size_t>(dims.Product()) * sizeof(T));
  for (int64_t i = 0; i < dims.Product(); ++i) {
    const double x = static_cast<double>(i);
    T v = static_cast<T>(std::is_floating_point_v<T> ? 1000.0 * std::sin(0.37 * x) + 0.001 * x : 31.0 * x - 4000.0);
    std::memcpy(&bytes[static_cast<size_t>(i) * sizeof(T)], &v, sizeof(T));
  }
  return bytes;
}

template <typename T>
double MaxError(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  double worst = 0;
  for (size_t i = 0; i + sizeof(T) <= a.size(); i += sizeof(T)) {
    T x, y;
    std::memcpy(&x, &a[i], sizeof(T));
    std::memcpy(&y, &b[i], sizeof(T));
    worst = std::max(worst, std::abs(static_cast<double>(x) - static_cast<double>(y)));
  }
  return worst;
}

template <typename T>
void CheckModes(const char* dtype) {
  for (Point dims : {Point{16, 8}, Point{5, 7}, Point{8, 4, 4}, Point{5, 3, 6}, Point{1, 16, 1}}) {
    SCOPED_TRACE(std::string(dtype) + " " + dims.ToString());
    const SampleShape shape{DType::Parse(dtype), dims};
    const std::vector<uint8_t> data = Field<T>(dims);
    for (const char* spec : {"zfp", "zfp-reversible-reversible"}) {
      const std::vector<uint8_t> z = EncodeShaped(spec, data, shape);
      EXPECT_EQ(z.size() % 8, 0u) << "whole 64-bit words, as OpenVisus's zfp writes";
      EXPECT_EQ(DecodeShaped(spec, z, shape, data.size()), data) << spec << " is lossless";
    }
    // zfp codes integers from their top bit plane down, so few planes lose small integers
    // entirely: floats keep 24 planes below their block exponent, integers need all 64.
    const std::string precision = std::is_floating_point_v<T> ? "zfp-precision=24" : "zfp-precision=64";
    const std::vector<uint8_t> p = EncodeShaped(precision, data, shape);
    const double p_error = MaxError<T>(DecodeShaped(precision, p, shape, data.size()), data);
    EXPECT_LE(p_error, std::is_floating_point_v<T> ? 0.01 : 64.0);
    if (std::is_floating_point_v<T>) {
      for (double tolerance : {0.5, 1e-3}) {
        const CodecSpec spec = CodecSpec::Parse("zfp-accuracy=" + std::to_string(tolerance));
        ByteBuffer z;
        EncodeInto(spec, data.data(), data.size(), shape, z);
        std::vector<uint8_t> back(data.size());
        Decode(spec, z.data(), z.size(), shape, back.data(), back.size(), "acc");
        EXPECT_LE(MaxError<T>(back, data), tolerance) << "accuracy mode bounds the error";
      }
    }
  }
}

TEST(ZfpCodec, ModesRoundTripForEveryType) {
  CheckModes<float>("float32");
  CheckModes<double>("float64");
  CheckModes<int32_t>("int32");
  CheckModes<int64_t>("int64");
}

// §9: the second part of a spec does not change how a stream decodes; hzio decodes in the mode
// that wrote the stream (a reversible stream read with precision 64 is garbage).
TEST(ZfpCodec, StreamsDecodeInTheirEncodeMode) {
  const SampleShape shape{DType::Parse("float32"), Point{16, 16}};
  const std::vector<uint8_t> data = Field<float>(shape.dims);
  const std::vector<uint8_t> z = EncodeShaped("zfp", data, shape);
  EXPECT_EQ(DecodeShaped("zfp-reversible-64", z, shape, data.size()), data);
  EXPECT_EQ(EncodeShaped("zfp-reversible-precision=12", data, shape), z);
}

TEST(ZfpCodec, TruncatedOrMismatchedStreamsAreCorrupt) {
  const SampleShape shape{DType::Parse("float64"), Point{9, 6, 5}};
  const std::vector<uint8_t> data = Field<double>(shape.dims);
  for (const char* spec : {"zfp", "zfp-precision=20", "zfp-accuracy=0.01"}) {
    const std::vector<uint8_t> z = EncodeShaped(spec, data, shape);
    for (size_t n = 0; n + 8 <= z.size(); n += (n < 64 ? 1 : 37)) {
      SCOPED_TRACE(std::string(spec) + " cut at " + std::to_string(n));
      const std::vector<uint8_t> cut(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(n));
      ExpectError([&] { (void)DecodeShaped(spec, cut, shape, data.size(), "d.bin: block 2"); }, ErrorCode::kCorrupt,
                  {"d.bin: block 2", "zfp block of " + std::to_string(n) + " bytes"});
    }
  }
  const std::vector<uint8_t> precise = EncodeShaped("zfp-precision=40", data, shape);
  ExpectError([&] { (void)DecodeShaped("zfp-precision=10", precise, shape, data.size(), "blk"); }, ErrorCode::kCorrupt,
              {"blk", "another zfp mode"});
}

TEST(ZfpCodec, WhatZfpCannotHoldIsUnsupported) {
  const std::vector<uint8_t> bytes(64 * 8);
  ExpectError([&] { (void)EncodeShaped("zfp", bytes, SampleShape{DType::Parse("uint8"), Point{64, 8}}); },
              ErrorCode::kUnsupported, {"float32, float64, int32 or int64", "not uint8"});
  ExpectError([&] { (void)EncodeShaped("zfp", bytes, SampleShape{DType::Parse("float32[2]"), Point{8, 8}}); },
              ErrorCode::kUnsupported, {"not float32[2]"});
  ExpectError([&] { (void)EncodeShaped("zfp", bytes, SampleShape{DType::Parse("uint32"), Point{16, 8}}); },
              ErrorCode::kUnsupported, {"not uint32"});
  ExpectError([&] { (void)EncodeShaped("zfp", bytes, SampleShape{DType::Parse("float64"), Point(1, 64)}); },
              ErrorCode::kUnsupported, {"2-D or 3-D", "1-D"});
  ExpectError([&] { (void)DecodeShaped("zfp", bytes, SampleShape{DType::Parse("float64"), Point{2, 2, 2, 8}}, 512); },
              ErrorCode::kUnsupported, {"4-D"});
  std::vector<uint8_t> out(64);
  ExpectError([&] { Decode(Codec::kZfp, bytes.data(), 16, out.data(), out.size(), "legacy z"); },
              ErrorCode::kUnsupported, {"legacy z", "block shape"});
  ExpectError([&] { CheckCodecFits(CodecSpec::Parse("zfp"), SampleShape{DType::Parse("int16"), Point{4, 4}}, "y.idx"); },
              ErrorCode::kUnsupported, {"y.idx", "not int16"});
}

}  // namespace
}  // namespace hzio
