// Codec dispatch (idx-format.md §5): names, block-entry codes (§4.5), and Decode/EncodeInto
// handing each payload to its codec's file.
#include "hzio/codec/codec.h"

#include <cstring>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio {

namespace {

using internal_codec::ImageShape;
using internal_codec::ImageShapeOf;

// JPEG's frame header holds 16-bit sizes; PNG's IHDR 31-bit ones.
constexpr int64_t kJpgMaxSide = 65535;
constexpr int64_t kPngMaxSide = 0x7fffffff;

bool Known(const SampleShape& shape) { return shape.dims.dims > 0; }

// Both sides of a codec call agree on the byte count the shape implies: a mismatch is the
// caller's bug, never the payload's.
void CheckShapeBytes(const SampleShape& shape, size_t bytes, const char* what, const std::string& where) {
  if (!Known(shape)) return;
  const int64_t want = shape.dtype.BytesFor(shape.dims.Product());
  Check(want == static_cast<int64_t>(bytes), ErrorCode::kInvalidArgument,
        where + ": " + std::to_string(bytes) + " bytes of " + what + " for " + std::to_string(shape.dims.Product()) +
            " samples of " + shape.dtype.ToString() + " (" + std::to_string(want) + " bytes)");
}

ImageShape ImageOf(Codec codec, const SampleShape& shape, const std::string& where) {
  const bool png = codec == Codec::kPng;
  return ImageShapeOf(shape, png ? "png" : "jpg", png, png ? kPngMaxSide : kJpgMaxSide, where);
}

}  // namespace

bool StoresRawBlocks(const Field& field) { return CodecSpec::Parse(field.compression).codec == Codec::kRaw; }

const char* CodecName(Codec codec) {
  switch (codec) {
    case Codec::kRaw: return "raw";
    case Codec::kZip: return "zip";
    case Codec::kJpg: return "jpg";
    case Codec::kPng: return "png";
    case Codec::kLz4: return "lz4";
    case Codec::kZfp: return "zfp";
  }
  return "raw";
}

Codec CodecFromCode(int code, const std::string& where) {
  switch (code) {
    case 0: return Codec::kRaw;
    case 3: return Codec::kZip;
    case 4: return Codec::kJpg;
    case 6: return Codec::kPng;
    case 7: return Codec::kLz4;
    case 8: return Codec::kZfp;
    default:
      throw Error(ErrorCode::kCorrupt, where + ": unknown compression code " + std::to_string(code));
  }
}

void Decode(const CodecSpec& spec, const uint8_t* data, size_t size, const SampleShape& shape, uint8_t* out,
            size_t out_size, const std::string& where) {
  CheckShapeBytes(shape, out_size, "output", where);
  switch (spec.codec) {
    case Codec::kRaw:
      Check(size == out_size, ErrorCode::kCorrupt,
            where + ": raw block has " + std::to_string(size) + " bytes, expected " + std::to_string(out_size));
      if (size) std::memcpy(out, data, size);
      return;
    case Codec::kZip: return internal_codec::DecodeZip(data, size, out, out_size, where);
    case Codec::kLz4: return internal_codec::DecodeLz4(data, size, out, out_size, where);
    case Codec::kPng:
    case Codec::kJpg: {
      const ImageShape image = Known(shape) ? ImageOf(spec.codec, shape, where) : ImageShape{};
      if (spec.codec == Codec::kPng) return internal_codec::DecodePng(data, size, image, out, out_size, where);
      return internal_codec::DecodeJpg(data, size, image, out, out_size, where);
    }
    case Codec::kZfp:
      Check(Known(shape), ErrorCode::kUnsupported,
            where + ": zfp blocks can only be decoded knowing their dtype and block shape");
      return internal_codec::DecodeZfp(spec.zfp_encode, data, size, shape, out, out_size, where);
  }
  throw Error(ErrorCode::kUnsupported, where + ": unknown codec");
}

void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, const SampleShape& shape, ByteBuffer& out) {
  const std::string where = std::string(CodecName(spec.codec)) + " encoding";
  CheckShapeBytes(shape, size, "input", where);
  switch (spec.codec) {
    case Codec::kRaw:
      out.Resize(size);
      if (size) std::memcpy(out.data(), data, size);
      return;
    case Codec::kZip: return internal_codec::EncodeZip(spec.zip_level, data, size, out);
    case Codec::kLz4: return internal_codec::EncodeLz4(data, size, out);
    case Codec::kPng:
    case Codec::kJpg: {
      Check(Known(shape), ErrorCode::kUnsupported,
            where + ": " + CodecName(spec.codec) + " blocks can only be written knowing their dtype and block shape");
      const ImageShape image = ImageOf(spec.codec, shape, where);
      if (spec.codec == Codec::kPng) return internal_codec::EncodePng(spec, data, image, out, where);
      return internal_codec::EncodeJpg(spec, data, image, out, where);
    }
    case Codec::kZfp:
      Check(Known(shape), ErrorCode::kUnsupported,
            where + ": zfp blocks can only be written knowing their dtype and block shape");
      return internal_codec::EncodeZfp(spec.zfp_encode, data, size, shape, out, where);
  }
  throw Error(ErrorCode::kUnsupported, where + ": unknown codec");
}

void CheckCodecFits(const CodecSpec& spec, const SampleShape& shape, const std::string& where) {
  switch (spec.codec) {
    case Codec::kPng:
    case Codec::kJpg: (void)ImageOf(spec.codec, shape, where); return;
    case Codec::kZfp: internal_codec::CheckZfpFits(shape, where); return;
    default: return;
  }
}

void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, ByteBuffer& out) {
  EncodeInto(spec, data, size, SampleShape{}, out);
}

std::vector<uint8_t> Encode(const CodecSpec& spec, const uint8_t* data, size_t size) {
  ByteBuffer out;
  EncodeInto(spec, data, size, SampleShape{}, out);
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

void Decode(Codec codec, const uint8_t* data, size_t size, uint8_t* out, size_t out_size, const std::string& where) {
  CodecSpec spec;
  spec.codec = codec;
  Decode(spec, data, size, SampleShape{}, out, out_size, where);
}

}  // namespace hzio
