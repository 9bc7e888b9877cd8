/// Block and wire codecs (idx-format.md §5): raw, zip (a zlib stream) and lz4 (one raw LZ4 block).
/// Pure functions of byte buffers; decoded sizes are implied by the caller, never stored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/util/byte_buffer.h"

namespace hzio {

/// Compression codes as stored in the low nibble of a block entry's flags (§4.5).
enum class Codec : int { kRaw = 0, kZip = 3, kJpg = 4, kPng = 6, kLz4 = 7, kZfp = 8 };

/// A codec with its options, parsed from a spec such as "zip", "zip-Z_BEST_SPEED", "lz4", "".
struct CodecSpec {
  Codec codec = Codec::kRaw;
  /// Deflate level for zip. Plain "zip" is level 1: on floating-point simulation fields it
  /// compresses as well as zlib's default 6 at twice the speed; "zip-Z_DEFAULT_COMPRESSION" (6)
  /// and "zip-Z_BEST_COMPRESSION" (9) are there for data where effort pays. Any level decodes alike.
  int zip_level = 1;

  /// Longest-prefix lookup as OpenVisus does; "", "raw", "bin" and unknown names are raw.
  static CodecSpec Parse(const std::string& spec);
  /// The codec's name as used in headers and on the wire ("" for raw... callers choose).
  std::string Name() const;
};

/// Codec of a stored block's code; throws kCorrupt for codes that are not assigned.
Codec CodecFromCode(int code, const std::string& where);
const char* CodecName(Codec codec);

/// Encodes `size` bytes. Throws kUnsupported for codecs hzio cannot write (jpg, png, zfp).
std::vector<uint8_t> Encode(const CodecSpec& spec, const uint8_t* data, size_t size);
/// Same, into a reusable buffer (resized to the encoded length).
void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, ByteBuffer& out);
/// Decodes into `out`, which must be exactly the expected decoded size; throws kCorrupt naming
/// `where` if the payload does not decode to exactly that many bytes.
void Decode(Codec codec, const uint8_t* data, size_t size, uint8_t* out, size_t out_size,
            const std::string& where);

}  // namespace hzio
