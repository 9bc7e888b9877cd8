/// Helpers of the codec tests: an error matcher, deterministic images and fields, and decoders
/// independent of hzio's codec code (libpng's simplified API, libjpeg's defaults) so that row
/// order and colour layout are checked against the libraries, not against hzio itself.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <png.h>
// jpeglib.h uses size_t and FILE without including their headers (cstdio above).
#include <jpeglib.h>

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"

namespace hzio::testing {

/// Runs `f`; it must throw hzio::Error with `code` and a message containing every substring.
inline void ExpectError(const std::function<void()>& f, ErrorCode code, const std::vector<std::string>& substrings) {
  try {
    f();
    ADD_FAILURE() << "no error thrown (expected " << ErrorCodeName(code) << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const std::string& s : substrings) EXPECT_NE(std::string(e.what()).find(s), std::string::npos) << e.what();
  }
}

/// A decoded PNG (top row first, as the file stores it), through libpng's simplified API.
struct PlainImage {
  uint32_t width = 0, height = 0;
  int channels = 0;
  std::vector<uint8_t> top_down;
};

inline PlainImage ReadPngPlain(const std::vector<uint8_t>& png_bytes) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  EXPECT_NE(png_image_begin_read_from_memory(&img, png_bytes.data(), png_bytes.size()), 0) << img.message;
  PlainImage out;
  out.width = img.width;
  out.height = img.height;
  out.channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(img.format));
  out.top_down.resize(PNG_IMAGE_SIZE(img));
  EXPECT_NE(png_image_finish_read(&img, nullptr, out.top_down.data(), 0, nullptr), 0) << img.message;
  png_image_free(&img);
  return out;
}

/// A PNG written by libpng's simplified API (top row first): `format` e.g. PNG_FORMAT_GRAY.
inline std::vector<uint8_t> WritePngPlain(uint32_t width, uint32_t height, uint32_t format, const void* top_down) {
  png_image img{};
  img.version = PNG_IMAGE_VERSION;
  img.width = width;
  img.height = height;
  img.format = format;
  png_alloc_size_t size = 0;
  EXPECT_NE(png_image_write_to_memory(&img, nullptr, &size, 0, top_down, 0, nullptr), 0) << img.message;
  std::vector<uint8_t> out(size);
  EXPECT_NE(png_image_write_to_memory(&img, out.data(), &size, 0, top_down, 0, nullptr), 0) << img.message;
  out.resize(size);
  return out;
}

/// A JPEG decoded by libjpeg with its defaults (top row first). Only for valid test input.
inline PlainImage ReadJpegPlain(const std::vector<uint8_t>& jpg_bytes) {
  jpeg_decompress_struct cinfo;
  jpeg_error_mgr err;
  cinfo.err = jpeg_std_error(&err);
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, jpg_bytes.data(), static_cast<unsigned long>(jpg_bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  jpeg_start_decompress(&cinfo);
  PlainImage out;
  out.width = cinfo.output_width;
  out.height = cinfo.output_height;
  out.channels = cinfo.output_components;
  out.top_down.resize(size_t{out.width} * out.height * static_cast<size_t>(out.channels));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out.top_down.data() + size_t{cinfo.output_scanline} * out.width * static_cast<size_t>(out.channels);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return out;
}

/// Encodes with the shape-aware API into a vector.
inline std::vector<uint8_t> EncodeShaped(const std::string& spec, const std::vector<uint8_t>& data,
                                         const SampleShape& shape) {
  ByteBuffer out;
  EncodeInto(CodecSpec::Parse(spec), data.data(), data.size(), shape, out);
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

/// Decodes with the shape-aware API into a vector of `bytes`.
inline std::vector<uint8_t> DecodeShaped(const std::string& spec, const std::vector<uint8_t>& payload,
                                         const SampleShape& shape, size_t bytes, const std::string& where = "test block") {
  std::vector<uint8_t> out(bytes);
  Decode(CodecSpec::Parse(spec), payload.data(), payload.size(), shape, out.data(), out.size(), where);
  return out;
}

/// uint8 samples of a smooth image with `channels` per pixel over width x height (row-major,
/// y = 0 first): smooth so that JPEG keeps them close, and different in every row.
inline std::vector<uint8_t> SmoothImage(int64_t width, int64_t height, int channels) {
  std::vector<uint8_t> v(static_cast<size_t>(width * height * channels));
  for (int64_t y = 0; y < height; ++y)
    for (int64_t x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c)
        v[static_cast<size_t>((y * width + x) * channels + c)] =
            static_cast<uint8_t>(40 + (150 * y) / std::max<int64_t>(1, height - 1) + (40 * x) / std::max<int64_t>(1, width - 1) + 10 * c);
  return v;
}

}  // namespace hzio::testing
