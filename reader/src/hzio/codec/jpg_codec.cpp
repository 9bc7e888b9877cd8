// jpg blocks (idx-format.md §5, §8.14): a baseline JPEG of 8-bit grey or RGB pixels, rows
// bottom-up like png. Decoding uses what OpenVisus's FreeImage asks libjpeg for (JPEG_FAST:
// the integer fast IDCT, no fancy upsampling), so the decoded values are OpenVisus's as far as
// libjpeg-turbo's fast IDCT matches libjpeg 9's. Encoding uses FreeImage's defaults (quality
// 75, 4:2:0) unless the spec names others.
//
// libjpeg reports errors through error_exit, which must not return: it longjmps back into the
// one function that runs a libjpeg session (nothing with a destructor lives in its frame), and
// the C++ caller turns the message into an hzio::Error. A libjpeg warning ("premature end of
// data", "corrupt data: extraneous bytes") means a damaged payload, so it is an error too.
// jpeglib.h uses size_t and FILE without including their headers.
#include <cstddef>
#include <cstdio>

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstring>
#include <new>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

namespace {

struct JpegSession {
  jpeg_error_mgr errors;  // first member: libjpeg hands back &errors as cinfo->err
  jmp_buf jump;
  jpeg_destination_mgr destination;
  ByteBuffer* out = nullptr;
  bool out_of_memory = false;
  char error[JMSG_LENGTH_MAX + 64] = {};
};

JpegSession* SessionOf(j_common_ptr cinfo) { return reinterpret_cast<JpegSession*>(cinfo->err); }

[[noreturn]] void OnError(j_common_ptr cinfo) {
  JpegSession* s = SessionOf(cinfo);
  (*cinfo->err->format_message)(cinfo, s->error);
  std::longjmp(s->jump, 1);
}

void OnMessage(j_common_ptr cinfo, int level) {
  if (level < 0) OnError(cinfo);  // a warning: the data is damaged
}

void OnOutput(j_common_ptr) {}

[[noreturn]] void Fail(JpegSession* s, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(s->error, sizeof s->error, format, args);
  va_end(args);
  std::longjmp(s->jump, 1);
}

void InstallErrors(JpegSession* s) {
  jpeg_std_error(&s->errors);
  s->errors.error_exit = OnError;
  s->errors.emit_message = OnMessage;
  s->errors.output_message = OnOutput;
}

// Destination manager appending to the session's ByteBuffer (grown by doubling).
void InitDestination(j_compress_ptr cinfo) {
  JpegSession* s = SessionOf(reinterpret_cast<j_common_ptr>(cinfo));
  s->destination.next_output_byte = s->out->data();
  s->destination.free_in_buffer = s->out->size();
}

boolean GrowDestination(j_compress_ptr cinfo) {
  JpegSession* s = SessionOf(reinterpret_cast<j_common_ptr>(cinfo));
  const size_t used = s->out->size();
  try {
    s->out->Resize(2 * used);
  } catch (const std::bad_alloc&) {
    s->out_of_memory = true;
  }
  if (s->out_of_memory) Fail(s, "out of memory growing the JPEG output");  // outside the catch
  s->destination.next_output_byte = s->out->data() + used;
  s->destination.free_in_buffer = s->out->size() - used;
  return TRUE;
}

void TermDestination(j_compress_ptr) {}

bool ReadJpeg(JpegSession* s, const uint8_t* data, size_t size, const ImageShape* image, uint8_t* out,
              size_t out_size) {
  jpeg_decompress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = &s->errors;
  if (setjmp(s->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  const long long width = cinfo.image_width, height = cinfo.image_height;
  const int channels = cinfo.num_components;
  if (channels != 1 && channels != 3) Fail(s, "a JPEG of %d components is neither grey nor RGB", channels);
  if (image->width > 0) {
    if (channels != image->channels)
      Fail(s, "the JPEG has %d components per pixel, the field's dtype %d", channels, image->channels);
    if (width != image->width || height != image->height)
      Fail(s, "the JPEG is %lldx%lld pixels, the block %lldx%lld", width, height,
           static_cast<long long>(image->width), static_cast<long long>(image->height));
  }
  const size_t row_bytes = static_cast<size_t>(width) * static_cast<size_t>(channels);
  if (row_bytes * static_cast<size_t>(height) != out_size)
    Fail(s, "the JPEG's %lld bytes of pixels are not the block's %zu bytes", static_cast<long long>(row_bytes) * height,
         out_size);
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo.dct_method = JDCT_IFAST;  // FreeImage's JPEG_FAST, as OpenVisus decodes
  cinfo.do_fancy_upsampling = FALSE;
  jpeg_start_decompress(&cinfo);
  if (cinfo.output_components != channels || cinfo.output_width != width || cinfo.output_height != height)
    Fail(s, "libjpeg decodes the JPEG to another geometry");
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = out + static_cast<size_t>(height - 1 - cinfo.output_scanline) * row_bytes;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return true;
}

bool WriteJpeg(JpegSession* s, const CodecSpec* spec, const uint8_t* data, const ImageShape* image) {
  jpeg_compress_struct cinfo;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = &s->errors;
  if (setjmp(s->jump)) {
    jpeg_destroy_compress(&cinfo);
    return false;
  }
  jpeg_create_compress(&cinfo);
  s->destination.init_destination = InitDestination;
  s->destination.empty_output_buffer = GrowDestination;
  s->destination.term_destination = TermDestination;
  cinfo.dest = &s->destination;
  cinfo.image_width = static_cast<JDIMENSION>(image->width);
  cinfo.image_height = static_cast<JDIMENSION>(image->height);
  cinfo.input_components = image->channels;
  cinfo.in_color_space = image->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (spec->jpg_progressive) jpeg_simple_progression(&cinfo);
  cinfo.optimize_coding = spec->jpg_optimize ? TRUE : FALSE;
  if (image->channels == 3) {  // luma sampling factors; chroma stays 1x1
    const int factors[4][2] = {{2, 2}, {4, 1}, {2, 1}, {1, 1}};  // 4:2:0, 4:1:1, 4:2:2, 4:4:4
    const int* f = factors[static_cast<int>(spec->jpg_subsampling)];
    cinfo.comp_info[0].h_samp_factor = f[0];
    cinfo.comp_info[0].v_samp_factor = f[1];
  }
  jpeg_set_quality(&cinfo, std::clamp(spec->jpg_quality, 1, 100), TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  const size_t row_bytes = static_cast<size_t>(image->RowBytes());
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(data) + static_cast<size_t>(image->height - 1 - cinfo.next_scanline) * row_bytes;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  s->out->Resize(s->out->size() - s->destination.free_in_buffer);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

void DecodeJpg(const uint8_t* data, size_t size, const ImageShape& image, uint8_t* out, size_t out_size,
               const std::string& where) {
  JpegSession s;
  InstallErrors(&s);
  if (!ReadJpeg(&s, data, size, &image, out, out_size)) throw Error(ErrorCode::kCorrupt, where + ": jpg block: " + s.error);
}

void EncodeJpg(const CodecSpec& spec, const uint8_t* data, const ImageShape& image, ByteBuffer& out,
               const std::string& where) {
  JpegSession s;
  InstallErrors(&s);
  s.out = &out;
  out.Resize(static_cast<size_t>(image.RowBytes() * image.height) / 4 + 4096);
  if (!WriteJpeg(&s, &spec, data, &image))
    throw Error(s.out_of_memory ? ErrorCode::kTooLarge : ErrorCode::kInternal, where + ": " + s.error);
}

}  // namespace hzio::internal_codec
