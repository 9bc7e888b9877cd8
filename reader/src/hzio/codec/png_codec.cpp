// png blocks (idx-format.md §5, §8.14): a PNG file of 8-bit grey (colour type 0), RGB (2) or
// RGBA (6) pixels, written as OpenVisus (FreeImage) does: zlib level 6 by default, rows
// bottom-up, i.e. the image's first (top) row is the block's highest y.
//
// libpng reports errors by longjmp. Each libpng session runs in one function whose frame holds
// nothing with a destructor (a longjmp would skip it); the C++ callers turn its failure text
// into an hzio::Error after it returned. Callbacks never let a C++ exception cross libpng.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <new>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

namespace {

struct PngSession {
  // reading: the payload; writing: the growing output
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  ByteBuffer* out = nullptr;
  bool out_of_memory = false;
  char error[200] = {};
};

// printf-style failure text, then back to the session's setjmp.
[[noreturn]] void Fail(png_structp png, PngSession* s, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(s->error, sizeof s->error, format, args);
  va_end(args);
  png_longjmp(png, 1);
}

void OnError(png_structp png, png_const_charp message) {
  auto* s = static_cast<PngSession*>(png_get_error_ptr(png));
  std::snprintf(s->error, sizeof s->error, "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp, png_const_charp) {}  // ancillary-chunk problems do not touch the samples

void ReadBytes(png_structp png, png_bytep dst, size_t n) {
  auto* s = static_cast<PngSession*>(png_get_io_ptr(png));
  if (n > s->size - s->pos) Fail(png, s, "the PNG data ends after %zu bytes (truncated)", s->size);
  std::memcpy(dst, s->data + s->pos, n);
  s->pos += n;
}

void WriteBytes(png_structp png, png_bytep src, size_t n) {
  auto* s = static_cast<PngSession*>(png_get_io_ptr(png));
  if (n > s->out->size() - s->pos) {
    try {
      s->out->Resize(std::max(s->pos + n, 2 * s->out->size()));
    } catch (const std::bad_alloc&) {
      s->out_of_memory = true;
    }
    if (s->out_of_memory) Fail(png, s, "out of memory growing the PNG output");  // outside the catch
  }
  std::memcpy(s->out->data() + s->pos, src, n);
  s->pos += n;
}

void FlushBytes(png_structp) {}

int ColourType(int channels) {
  return channels == 1 ? PNG_COLOR_TYPE_GRAY : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
}

int ChannelsOf(int colour_type) {
  switch (colour_type) {
    case PNG_COLOR_TYPE_GRAY: return 1;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 0;  // palette, grey+alpha: no IDX dtype is stored that way
  }
}

// Returns false with s->error set. `image.width == 0`: any 8-bit image filling out_size bytes.
bool ReadPng(PngSession* s, const ImageShape* image, uint8_t* out, size_t out_size) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, OnError, OnWarning);
  if (png == nullptr) {
    std::snprintf(s->error, sizeof s->error, "cannot allocate a PNG decoder");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(s->error, sizeof s->error, "cannot allocate a PNG decoder");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return false;
  }
  png_set_read_fn(png, s, ReadBytes);
  if (image->width > 0) {  // libpng then refuses an absurd header before allocating anything for it
    const auto side = static_cast<png_uint_32>(std::min<int64_t>(image->width * image->height, 0x7fffffff));
    png_set_user_limits(png, side, side);
  }
  png_read_info(png, info);
  const long long width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const int depth = png_get_bit_depth(png, info), colour = png_get_color_type(png, info);
  const int channels = ChannelsOf(colour);
  if (depth != 8 || channels == 0)
    Fail(png, s, "a PNG of colour type %d with %d-bit samples is not an 8-bit grey, RGB or RGBA image", colour, depth);
  if (image->width > 0) {
    if (channels != image->channels)
      Fail(png, s, "the PNG has %d channels per pixel, the field's dtype %d", channels, image->channels);
    if (width != image->width || height != image->height)
      Fail(png, s, "the PNG is %lldx%lld pixels, the block %lldx%lld", width, height,
           static_cast<long long>(image->width), static_cast<long long>(image->height));
  }
  const size_t row_bytes = static_cast<size_t>(width) * static_cast<size_t>(channels);
  if (row_bytes * static_cast<size_t>(height) != out_size)
    Fail(png, s, "the PNG's %lld bytes of pixels are not the block's %zu bytes",
         static_cast<long long>(row_bytes) * height, out_size);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  for (int pass = 0; pass < passes; ++pass)
    for (long long y = 0; y < height; ++y) png_read_row(png, out + static_cast<size_t>(height - 1 - y) * row_bytes, nullptr);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

bool WritePng(PngSession* s, const uint8_t* data, const ImageShape* image, int level) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, OnError, OnWarning);
  if (png == nullptr) {
    std::snprintf(s->error, sizeof s->error, "cannot allocate a PNG encoder");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    std::snprintf(s->error, sizeof s->error, "cannot allocate a PNG encoder");
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, s, WriteBytes, FlushBytes);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, static_cast<png_uint_32>(image->width), static_cast<png_uint_32>(image->height), 8,
               ColourType(image->channels), PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const size_t row_bytes = static_cast<size_t>(image->RowBytes());
  for (int64_t y = image->height - 1; y >= 0; --y) png_write_row(png, data + static_cast<size_t>(y) * row_bytes);
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

void DecodePng(const uint8_t* data, size_t size, const ImageShape& image, uint8_t* out, size_t out_size,
               const std::string& where) {
  PngSession s;
  s.data = data;
  s.size = size;
  if (!ReadPng(&s, &image, out, out_size)) throw Error(ErrorCode::kCorrupt, where + ": png block: " + s.error);
}

void EncodePng(const CodecSpec& spec, const uint8_t* data, const ImageShape& image, ByteBuffer& out,
               const std::string& where) {
  PngSession s;
  s.out = &out;
  out.Resize(static_cast<size_t>(image.RowBytes() * image.height) / 2 + 1024);
  if (!WritePng(&s, data, &image, std::clamp(spec.png_level, 0, 9)))
    throw Error(s.out_of_memory ? ErrorCode::kTooLarge : ErrorCode::kInternal, where + ": " + s.error);
  out.Resize(s.pos);
}

}  // namespace hzio::internal_codec
