// lz4 blocks: one raw LZ4 block, no frame, no size prefix (idx-format.md §5, §8.13).
#include <lz4.h>

#include <climits>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

void EncodeLz4(const uint8_t* data, size_t size, ByteBuffer& out) {
  Check(size <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE), ErrorCode::kTooLarge,
        "lz4 block of " + std::to_string(size) + " bytes is over the LZ4 limit");
  out.Resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))));
  const int n = LZ4_compress_default(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out.data()),
                                     static_cast<int>(size), static_cast<int>(out.size()));
  Check(n > 0, ErrorCode::kInternal, "LZ4_compress_default failed");
  out.Resize(static_cast<size_t>(n));
}

void DecodeLz4(const uint8_t* data, size_t size, uint8_t* out, size_t out_size, const std::string& where) {
  Check(size <= static_cast<size_t>(INT_MAX) && out_size <= static_cast<size_t>(INT_MAX), ErrorCode::kTooLarge,
        where + ": lz4 block over 2 GiB");
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out),
                                    static_cast<int>(size), static_cast<int>(out_size));
  Check(n == static_cast<int>(out_size), ErrorCode::kCorrupt,
        where + ": lz4 block does not decode to " + std::to_string(out_size) + " bytes");
}

}  // namespace hzio::internal_codec
