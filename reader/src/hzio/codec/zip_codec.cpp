// zip blocks: a zlib stream (RFC 1950), idx-format.md §5 and §8.13.
#include <libdeflate.h>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

namespace {

// libdeflate writes and reads the same format as zlib's compress2/uncompress, two to three times
// faster. Compressors are per thread and level.
libdeflate_compressor* Compressor(int level) {
  struct Owned {
    libdeflate_compressor* by_level[13] = {};
    ~Owned() {
      for (libdeflate_compressor* c : by_level) libdeflate_free_compressor(c);
    }
  };
  thread_local Owned owned;
  level = level < 0 ? 6 : level > 12 ? 12 : level;
  libdeflate_compressor*& c = owned.by_level[level];
  if (c == nullptr) c = libdeflate_alloc_compressor(level);
  Check(c != nullptr, ErrorCode::kInternal, "cannot allocate a deflate compressor");
  return c;
}

libdeflate_decompressor* Decompressor() {
  struct Owned {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~Owned() { libdeflate_free_decompressor(d); }
  };
  thread_local Owned owned;
  Check(owned.d != nullptr, ErrorCode::kInternal, "cannot allocate a deflate decompressor");
  return owned.d;
}

}  // namespace

void EncodeZip(int level, const uint8_t* data, size_t size, ByteBuffer& out) {
  libdeflate_compressor* c = Compressor(level);
  out.Resize(libdeflate_zlib_compress_bound(c, size));
  const size_t n = libdeflate_zlib_compress(c, data, size, out.data(), out.size());
  Check(n > 0, ErrorCode::kInternal, "zlib-stream compression failed");
  out.Resize(n);
}

void DecodeZip(const uint8_t* data, size_t size, uint8_t* out, size_t out_size, const std::string& where) {
  size_t produced = 0;
  const libdeflate_result rc = libdeflate_zlib_decompress(Decompressor(), data, size, out, out_size, &produced);
  Check(rc == LIBDEFLATE_SUCCESS && produced == out_size, ErrorCode::kCorrupt,
        where + ": zip block does not decode to " + std::to_string(out_size) + " bytes" +
            (rc == LIBDEFLATE_SUCCESS ? " (got " + std::to_string(produced) + ")"
             : rc == LIBDEFLATE_INSUFFICIENT_SPACE ? " (it is longer)" : " (not a valid zlib stream)"));
}

}  // namespace hzio::internal_codec
