#include "hzio/codec/codec.h"

#include <libdeflate.h>
#include <lz4.h>

#include <climits>
#include <cstring>

#include "hzio/util/error.h"

namespace hzio {

namespace {

// zip payloads are zlib streams (idx-format.md §5); libdeflate writes and reads the same format as
// zlib's compress2/uncompress, two to three times faster. Compressors are per thread and level.
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

CodecSpec CodecSpec::Parse(const std::string& spec) {
  CodecSpec s;
  auto starts = [&](const char* p) { return spec.rfind(p, 0) == 0; };
  if (starts("zip")) {
    s.codec = Codec::kZip;
    if (spec.find("Z_BEST_SPEED") != std::string::npos) s.zip_level = 1;
    else if (spec.find("Z_BEST_COMPRESSION") != std::string::npos) s.zip_level = 9;
    else if (spec.find("Z_NO_COMPRESSION") != std::string::npos) s.zip_level = 0;
    else if (spec.find("Z_DEFAULT_COMPRESSION") != std::string::npos) s.zip_level = 6;
  } else if (starts("lz4")) {
    s.codec = Codec::kLz4;
  } else if (starts("zfp")) {
    s.codec = Codec::kZfp;
  } else if (starts("png")) {
    s.codec = Codec::kPng;
  } else if (starts("jpg")) {
    s.codec = Codec::kJpg;
  }
  return s;
}

std::string CodecSpec::Name() const { return CodecName(codec); }

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

void EncodeInto(const CodecSpec& spec, const uint8_t* data, size_t size, ByteBuffer& out) {
  switch (spec.codec) {
    case Codec::kRaw:
      out.Resize(size);
      if (size) std::memcpy(out.data(), data, size);
      return;
    case Codec::kZip: {
      libdeflate_compressor* c = Compressor(spec.zip_level);
      out.Resize(libdeflate_zlib_compress_bound(c, size));
      const size_t n = libdeflate_zlib_compress(c, data, size, out.data(), out.size());
      Check(n > 0, ErrorCode::kInternal, "zlib-stream compression failed");
      out.Resize(n);
      return;
    }
    case Codec::kLz4: {
      Check(size <= static_cast<size_t>(LZ4_MAX_INPUT_SIZE), ErrorCode::kTooLarge,
            "lz4 block of " + std::to_string(size) + " bytes is over the LZ4 limit");
      out.Resize(static_cast<size_t>(LZ4_compressBound(static_cast<int>(size))));
      int n = LZ4_compress_default(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out.data()),
                                   static_cast<int>(size), static_cast<int>(out.size()));
      Check(n > 0, ErrorCode::kInternal, "LZ4_compress_default failed");
      out.Resize(static_cast<size_t>(n));
      return;
    }
    default:
      throw Error(ErrorCode::kUnsupported, std::string("writing ") + CodecName(spec.codec) +
                                               " blocks is not supported (use raw, zip or lz4)");
  }
}

std::vector<uint8_t> Encode(const CodecSpec& spec, const uint8_t* data, size_t size) {
  ByteBuffer out;
  EncodeInto(spec, data, size, out);
  return std::vector<uint8_t>(out.data(), out.data() + out.size());
}

void Decode(Codec codec, const uint8_t* data, size_t size, uint8_t* out, size_t out_size,
            const std::string& where) {
  switch (codec) {
    case Codec::kRaw:
      Check(size == out_size, ErrorCode::kCorrupt,
            where + ": raw block has " + std::to_string(size) + " bytes, expected " + std::to_string(out_size));
      std::memcpy(out, data, size);
      return;
    case Codec::kZip: {
      size_t produced = 0;
      const libdeflate_result rc =
          libdeflate_zlib_decompress(Decompressor(), data, size, out, out_size, &produced);
      Check(rc == LIBDEFLATE_SUCCESS && produced == out_size, ErrorCode::kCorrupt,
            where + ": zip block does not decode to " + std::to_string(out_size) + " bytes" +
                (rc == LIBDEFLATE_SUCCESS ? " (got " + std::to_string(produced) + ")"
                 : rc == LIBDEFLATE_INSUFFICIENT_SPACE ? " (it is longer)" : " (not a valid zlib stream)"));
      return;
    }
    case Codec::kLz4: {
      Check(size <= static_cast<size_t>(INT_MAX) && out_size <= static_cast<size_t>(INT_MAX), ErrorCode::kTooLarge,
            where + ": lz4 block over 2 GiB");
      int n = LZ4_decompress_safe(reinterpret_cast<const char*>(data), reinterpret_cast<char*>(out),
                                  static_cast<int>(size), static_cast<int>(out_size));
      Check(n == static_cast<int>(out_size), ErrorCode::kCorrupt,
            where + ": lz4 block does not decode to " + std::to_string(out_size) + " bytes");
      return;
    }
    default:
      throw Error(ErrorCode::kUnsupported,
                  where + ": " + CodecName(codec) + " blocks are not supported (raw, zip, lz4 are)");
  }
}

}  // namespace hzio
