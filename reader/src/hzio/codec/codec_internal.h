/// The per-codec halves behind codec.h's dispatch (idx-format.md §5), one file each, and the
/// image geometry png and jpg share. Internal (namespace internal_codec): use codec.h.
#pragma once

#include <cstdint>
#include <string>

#include "hzio/codec/codec.h"

namespace hzio::internal_codec {

// zip_codec.cpp, lz4_codec.cpp: the decoded size is all they need.
void EncodeZip(int level, const uint8_t* data, size_t size, ByteBuffer& out);
void DecodeZip(const uint8_t* data, size_t size, uint8_t* out, size_t out_size, const std::string& where);
void EncodeLz4(const uint8_t* data, size_t size, ByteBuffer& out);
void DecodeLz4(const uint8_t* data, size_t size, uint8_t* out, size_t out_size, const std::string& where);

/// An 8-bit image as png and jpg store a block (§5): `channels` samples of one byte per pixel,
/// `width` = the first non-unit axis of the block grid, `height` = the second. width == 0 means
/// the geometry is unknown (legacy calls): any image whose bytes fill the output is taken.
struct ImageShape {
  int64_t width = 0, height = 0;
  int channels = 0;
  int64_t RowBytes() const { return width * channels; }
};

/// The image geometry of `shape` for codec `name` ("png" allows up to 4 channels, "jpg" 3), or
/// kUnsupported naming `where` when the dtype is not uint8 with an allowed channel count, or
/// when the grid has more than two non-unit axes. `max_side` bounds width and height.
ImageShape ImageShapeOf(const SampleShape& shape, const char* name, bool allow_alpha, int64_t max_side,
                        const std::string& where);

// png_codec.cpp, jpg_codec.cpp: rows stored bottom-up (the image's top row is the highest y).
void EncodePng(const CodecSpec& spec, const uint8_t* data, const ImageShape& image, ByteBuffer& out,
               const std::string& where);
void DecodePng(const uint8_t* data, size_t size, const ImageShape& image, uint8_t* out, size_t out_size,
               const std::string& where);
void EncodeJpg(const CodecSpec& spec, const uint8_t* data, const ImageShape& image, ByteBuffer& out,
               const std::string& where);
void DecodeJpg(const uint8_t* data, size_t size, const ImageShape& image, uint8_t* out, size_t out_size,
               const std::string& where);

// zfp_codec.cpp: the shape must be known (dims.dims 2 or 3, one component).
void CheckZfpFits(const SampleShape& shape, const std::string& where);
void EncodeZfp(const ZfpMode& mode, const uint8_t* data, size_t size, const SampleShape& shape, ByteBuffer& out,
               const std::string& where);
void DecodeZfp(const ZfpMode& mode, const uint8_t* data, size_t size, const SampleShape& shape, uint8_t* out,
               size_t out_size, const std::string& where);

}  // namespace hzio::internal_codec
