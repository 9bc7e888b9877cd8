/// Block and wire codecs (idx-format.md §5, §4.5 codes, §8.13–8.15): raw, zip (a zlib stream),
/// lz4 (one raw LZ4 block), png (lossless, rows bottom-up), jpg (lossy, rows bottom-up) and zfp
/// (a raw zfp 1.0 bitstream without header). Pure functions of byte buffers. Decoded sizes are
/// implied by the caller, never stored; png, jpg and zfp also need the samples' shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/format/dtype.h"
#include "hzio/format/field.h"
#include "hzio/util/box.h"
#include "hzio/util/byte_buffer.h"

namespace hzio {

/// Compression codes as stored in the low nibble of a block entry's flags (§4.5).
enum class Codec : int { kRaw = 0, kZip = 3, kJpg = 4, kPng = 6, kLz4 = 7, kZfp = 8 };

/// One zfp compression mode (§5: `reversible`, `precision=N`, `accuracy=X`).
struct ZfpMode {
  enum class Kind { kReversible, kPrecision, kAccuracy };
  Kind kind = Kind::kReversible;
  int precision = 64;    // kPrecision: bit planes kept, 1..64
  double accuracy = 0;   // kAccuracy: absolute error tolerance, > 0

  /// "reversible", "precision=N" or "accuracy=X" (shortest round-trip decimal, no exponent).
  std::string ToString() const;
  bool operator==(const ZfpMode& o) const {
    return kind == o.kind && precision == o.precision && accuracy == o.accuracy;
  }
};

/// JPEG chroma subsampling (FreeImage's JPEG_SUBSAMPLING_* options); 4:2:0 is libjpeg's default.
enum class JpgSubsampling { k420, k411, k422, k444 };

/// A codec with its options, parsed from a spec such as "zip", "zip-Z_BEST_SPEED", "lz4",
/// "png-PNG_Z_BEST_SPEED", "jpg-JPEG_QUALITYSUPERB", "zfp", "zfp-precision=32-precision=32", "".
struct CodecSpec {
  Codec codec = Codec::kRaw;
  /// Deflate level for zip. Plain "zip" is level 1: on floating-point simulation fields it
  /// compresses as well as zlib's default 6 at twice the speed; "zip-Z_DEFAULT_COMPRESSION" (6)
  /// and "zip-Z_BEST_COMPRESSION" (9) are there for data where effort pays. Any level decodes alike.
  int zip_level = 1;
  /// zlib level of png's image data: OpenVisus's default 6; PNG_Z_BEST_SPEED 1,
  /// PNG_Z_BEST_COMPRESSION 9, PNG_Z_NO_COMPRESSION 0.
  int png_level = 6;
  /// JPEG quality 1..100: OpenVisus's default 75; JPEG_QUALITYSUPERB 100, GOOD 75, NORMAL 50,
  /// AVERAGE 25, BAD 10 (the lowest one named wins, as in FreeImage).
  int jpg_quality = 75;
  JpgSubsampling jpg_subsampling = JpgSubsampling::k420;
  bool jpg_progressive = false;  // JPEG_PROGRESSIVE
  bool jpg_optimize = false;     // JPEG_OPTIMIZE (optimal Huffman tables)
  /// The two parts of `zfp-<encode>-<decode>`. Bare "zfp" is `zfp-reversible-64` (§5).
  /// A zfp stream decodes only in the mode that wrote it (its blocks are variable-length and
  /// carry no mode), so hzio writes and reads zfp blocks with `zfp_encode`; `zfp_decode` is kept
  /// as parsed. OpenVisus 2.2.149 decodes with the second part, which turns bare-"zfp" blocks
  /// (reversible) into garbage: see tests/interop/test_openvisus_codecs.py for the evidence.
  ZfpMode zfp_encode;
  ZfpMode zfp_decode{ZfpMode::Kind::kPrecision, 64, 0};

  /// Longest-prefix lookup as OpenVisus does (§5); "", "raw", "bin" and unknown names are raw.
  /// Throws kInvalidArgument, naming the spec, for a zfp mode that is not one of §5's forms.
  static CodecSpec Parse(const std::string& spec);
  /// The spec for decoding a stored block whose entry says `stored`: for zfp blocks the field's
  /// `default_compression` when it names a zfp spec (§5, §8.15), otherwise the codec's defaults.
  static CodecSpec ForBlock(Codec stored, const std::string& field_compression);
  /// The codec's name as used in headers and on the wire ("raw" for raw).
  std::string Name() const;
};

/// Whether new blocks of `field` are stored raw (its compression parses to raw): any byte range
/// of such a block can be read, or written by another rank, without coding the rest.
bool StoresRawBlocks(const Field& field);

/// The samples a payload holds: their dtype and the block's grid counts, x first (§4.1), unit
/// axes as they are. dims.dims == 0 means "unknown" (the legacy calls below): png and jpg then
/// take the image's own geometry, zfp cannot decode.
struct SampleShape {
  DType dtype;
  Point dims;
};

/// Codec of a stored block's code; throws kCorrupt for codes that are not assigned.
Codec CodecFromCode(int code, const std::string& where);
const char* CodecName(Codec codec);

/// Decodes `size` bytes into `out`, which holds exactly the expected decoded size. Throws
/// kCorrupt naming `where` if the payload does not decode to exactly those samples (truncated,
/// garbage, an image of another size or colour type), kUnsupported (naming `where`) for a dtype
/// or shape the codec cannot hold (§5: png uint8/uint8[3]/uint8[4], jpg uint8/uint8[3], both
/// with at most two non-unit axes; zfp single-component float32/float64/int32/int64, 2-D/3-D).
void Decode(const CodecSpec& spec, const uint8_t* data, size_t size, const SampleShape& shape, uint8_t* out,
            size_t out_size, const std::string& where);
/// Encodes `size` bytes of samples of `shape` into `out` (resized to the encoded length).
/// Throws kUnsupported as Decode does, kInvalidArgument if `size` does not match the shape.
void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, const SampleShape& shape, ByteBuffer& out);

/// Throws what EncodeInto would throw for samples of `shape` that `spec` cannot hold
/// (kUnsupported naming `where`), without encoding anything: writers check before writing.
void CheckCodecFits(const CodecSpec& spec, const SampleShape& shape, const std::string& where);

/// Legacy forms without a shape: raw, zip, lz4 (and png/jpg decoding, which check only the byte
/// count). zfp, and png/jpg encoding, throw kUnsupported: they need the shape.
std::vector<uint8_t> Encode(const CodecSpec& spec, const uint8_t* data, size_t size);
void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, ByteBuffer& out);
void Decode(Codec codec, const uint8_t* data, size_t size, uint8_t* out, size_t out_size,
            const std::string& where);

}  // namespace hzio
