#include "hzio/hz/unit_scatter.h"

#include "hzio/hz/sample_kernels.h"

namespace hzio {

void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sb) {
  Scatter(dst, src, offsets, n, sb, ScatterKernel(sb, Reach::kFar));
}

std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count) {
  const Grid g = layout.BlockGrid(layout.FirstBlockOfLevel(level));
  const int n = g.dims();
  int64_t step[kMaxDims];  // array index distance of consecutive grid samples along each axis
  int64_t pitch = 1, last = 0;
  for (int d = 0; d < n; ++d) {
    step[d] = dst_step[d] * pitch;
    last += (g.count[d] - 1) * step[d];
    pitch *= dst_count[d];
  }
  if (last > int64_t{UINT32_MAX}) return {};
  const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(level);
  std::vector<uint32_t> offsets(to_hz.size());
  // Walk the grid row-major: each sample's offset from the previous one's by carrying axes.
  int64_t k[kMaxDims] = {0}, at = 0;
  for (size_t r = 0; r < to_hz.size(); ++r) {
    offsets[to_hz[r]] = static_cast<uint32_t>(at);
    for (int d = 0; d < n; ++d) {
      if (++k[d] < g.count[d]) {
        at += step[d];
        break;
      }
      at -= (g.count[d] - 1) * step[d];
      k[d] = 0;
    }
  }
  return offsets;
}

}  // namespace hzio
