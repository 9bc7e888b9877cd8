// The image a png or jpg block is (idx-format.md §5): 8-bit grey, RGB or RGBA pixels; width is
// the first axis of the block grid that is not 1, height the second (unit axes are dropped, as
// OpenVisus does before encoding, so a 4x1x8 block is a 4x8 image).
#include "hzio/codec/codec_internal.h"
#include "hzio/util/error.h"

namespace hzio::internal_codec {

ImageShape ImageShapeOf(const SampleShape& shape, const char* name, bool allow_alpha, int64_t max_side,
                        const std::string& where) {
  const DType& t = shape.dtype;
  const int c = t.components();
  const bool channels_ok = c == 1 || c == 3 || (allow_alpha && c == 4);
  Check(t.kind() == DType::Kind::kUnsigned && t.bits() == 8 && channels_ok, ErrorCode::kUnsupported,
        where + ": " + name + " blocks hold " + (allow_alpha ? "uint8, uint8[3] or uint8[4]" : "uint8 or uint8[3]") +
            " samples, not " + t.ToString());
  ImageShape image;
  image.channels = c;
  int64_t sides[2] = {1, 1};
  int used = 0;
  for (int d = 0; d < shape.dims.dims; ++d) {
    const int64_t n = shape.dims[d];
    if (n == 1) continue;
    Check(used < 2 && n > 0, ErrorCode::kUnsupported,
          where + ": " + name + " blocks are 2-D images; a block grid of " + shape.dims.ToString() +
              " samples has more than two axes longer than 1");
    sides[used++] = n;
  }
  Check(sides[0] <= max_side && sides[1] <= max_side, ErrorCode::kUnsupported,
        where + ": a " + std::to_string(sides[0]) + "x" + std::to_string(sides[1]) + " image is larger than " + name +
            " allows (" + std::to_string(max_side) + " pixels a side)");
  image.width = sides[0];
  image.height = sides[1];
  return image;
}

}  // namespace hzio::internal_codec
