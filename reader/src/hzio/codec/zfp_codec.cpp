// zfp blocks (idx-format.md §5, §8.15, §9): a raw zfp 1.0 bitstream, no zfp header, of one
// single-component float32/float64/int32/int64 field of the block's grid (nx = dims[0], ny =
// dims[1], nz = dims[2]), 2-D or 3-D as the dataset is, compressed in one of zfp's reversible,
// fixed-precision or fixed-accuracy modes. The mode is not in the stream: it is the field's spec.
//
// zfp reads its stream without bounds checks, so a truncated or corrupt payload is decoded from
// a copy padded with zeros up to the most a stream of that mode and shape can take; a decode
// that consumed more than the payload, or left more than word padding unread, is corrupt (or
// was written in another mode).
#include <zfp.h>

#include <algorithm>
#include <cstring>

#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

namespace {

// OpenVisus's zfp writes 64-bit stream words; Debian's zfp 1.0 is built with 8-bit words, which
// gives the same bytes on little-endian hosts but ends the stream on a byte. Output is padded to
// whole 64-bit words so that readers using 64-bit words never read past the payload.
constexpr size_t kWordBytes = 8;

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

zfp_type TypeOf(const DType& t) {
  if (t.components() != 1) return zfp_type_none;
  if (t.kind() == DType::Kind::kFloat) return t.bits() == 32 ? zfp_type_float : t.bits() == 64 ? zfp_type_double : zfp_type_none;
  if (t.kind() == DType::Kind::kSigned) return t.bits() == 32 ? zfp_type_int32 : t.bits() == 64 ? zfp_type_int64 : zfp_type_none;
  return zfp_type_none;
}

}  // namespace

void CheckZfpFits(const SampleShape& shape, const std::string& where) {
  Check(TypeOf(shape.dtype) != zfp_type_none, ErrorCode::kUnsupported,
        where + ": zfp blocks hold one float32, float64, int32 or int64 per sample, not " + shape.dtype.ToString());
  const Point& d = shape.dims;
  Check(d.dims == 2 || d.dims == 3, ErrorCode::kUnsupported,
        where + ": zfp blocks belong to 2-D or 3-D datasets, not " + std::to_string(d.dims) + "-D ones");
  for (int i = 0; i < d.dims; ++i)
    Check(d[i] > 0 && static_cast<uint64_t>(d[i]) <= (uint64_t{1} << 40), ErrorCode::kUnsupported,
          where + ": zfp cannot hold a block grid of " + d.ToString() + " samples");
}

namespace {

// The zfp objects of one call, closed on every path.
class ZfpCall {
 public:
  ZfpCall(const ZfpMode& mode, const SampleShape& shape, void* samples, const std::string& where) {
    CheckZfpFits(shape, where);
    const zfp_type type = TypeOf(shape.dtype);
    const Point& d = shape.dims;
    const auto n = [&](int i) { return static_cast<size_t>(d[i]); };
    field_ = d.dims == 2 ? zfp_field_2d(samples, type, n(0), n(1)) : zfp_field_3d(samples, type, n(0), n(1), n(2));
    zfp_ = zfp_stream_open(nullptr);
    Check(field_ != nullptr && zfp_ != nullptr, ErrorCode::kInternal, where + ": cannot allocate a zfp stream");
    switch (mode.kind) {
      case ZfpMode::Kind::kReversible: zfp_stream_set_reversible(zfp_); break;
      case ZfpMode::Kind::kPrecision: zfp_stream_set_precision(zfp_, static_cast<unsigned>(mode.precision)); break;
      case ZfpMode::Kind::kAccuracy: zfp_stream_set_accuracy(zfp_, mode.accuracy); break;
    }
  }
  ~ZfpCall() {
    if (zfp_ != nullptr) zfp_stream_close(zfp_);
    if (stream_ != nullptr) stream_close(stream_);
    if (field_ != nullptr) zfp_field_free(field_);
  }
  ZfpCall(const ZfpCall&) = delete;
  ZfpCall& operator=(const ZfpCall&) = delete;

  /// The most bytes a stream of this mode and shape can take.
  size_t MaximumSize() const { return zfp_stream_maximum_size(zfp_, field_); }
  void Attach(uint8_t* buffer, size_t size, const std::string& where) {
    stream_ = stream_open(buffer, size);
    Check(stream_ != nullptr, ErrorCode::kInternal, where + ": cannot open a zfp bit stream");
    zfp_stream_set_bit_stream(zfp_, stream_);
    zfp_stream_rewind(zfp_);
  }
  size_t Compress() { return zfp_compress(zfp_, field_); }
  size_t Decompress() { return zfp_decompress(zfp_, field_); }

 private:
  zfp_field* field_ = nullptr;
  zfp_stream* zfp_ = nullptr;
  bitstream* stream_ = nullptr;
};

}  // namespace

void EncodeZfp(const ZfpMode& mode, const uint8_t* data, size_t size, const SampleShape& shape, ByteBuffer& out,
               const std::string& where) {
  (void)size;  // the caller checked it against the shape
  ZfpCall call(mode, shape, const_cast<uint8_t*>(data), where);
  const size_t capacity = RoundUp(call.MaximumSize(), kWordBytes);
  out.Resize(capacity);
  call.Attach(out.data(), capacity, where);
  const size_t n = call.Compress();
  Check(n > 0 && n <= capacity, ErrorCode::kInternal, where + ": zfp_compress failed");
  const size_t padded = RoundUp(n, kWordBytes);
  std::memset(out.data() + n, 0, padded - n);
  out.Resize(padded);
}

void DecodeZfp(const ZfpMode& mode, const uint8_t* data, size_t size, const SampleShape& shape, uint8_t* out,
               size_t out_size, const std::string& where) {
  (void)out_size;  // the caller checked it against the shape
  ZfpCall call(mode, shape, out, where);
  thread_local ByteBuffer padded;
  const size_t capacity = RoundUp(std::max(size, call.MaximumSize()), kWordBytes) + 2 * kWordBytes;
  padded.Resize(capacity);
  if (size > 0) std::memcpy(padded.data(), data, size);
  std::memset(padded.data() + size, 0, capacity - size);
  call.Attach(padded.data(), capacity, where);
  const size_t used = call.Decompress();
  Check(used > 0 && used <= size, ErrorCode::kCorrupt,
        where + ": zfp block of " + std::to_string(size) + " bytes is truncated or corrupt (decoding it in mode " +
            mode.ToString() + " needs " + std::to_string(used) + " bytes)");
  Check(size - used < kWordBytes, ErrorCode::kCorrupt,
        where + ": zfp block of " + std::to_string(size) + " bytes decodes from only " + std::to_string(used) +
            " of them in mode " + mode.ToString() + " (corrupt, or written in another zfp mode)");
}

}  // namespace hzio::internal_codec
