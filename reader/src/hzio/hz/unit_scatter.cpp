#include "hzio/hz/unit_scatter.h"

#include <cstring>

namespace hzio {

namespace {

template <class Word>
void ScatterWords(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t words) {
  Word* o = reinterpret_cast<Word*>(dst);
  const Word* i = reinterpret_cast<const Word*>(src);
  if (words == 1) {
    for (int64_t h = 0; h < n; ++h) std::memcpy(o + offsets[h], i + h, sizeof(Word));
    return;
  }
  // Vector samples: a word loop (a memcpy call of a variable size per sample cost more).
  for (int64_t h = 0; h < n; ++h) {
    Word* to = o + static_cast<int64_t>(offsets[h]) * words;
    const Word* from = i + h * words;
    for (int64_t w = 0; w < words; ++w) std::memcpy(to + w, from + w, sizeof(Word));
  }
}

}  // namespace

void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sb) {
  if (sb % 8 == 0) return ScatterWords<uint64_t>(dst, src, offsets, n, sb / 8);
  if (sb % 4 == 0) return ScatterWords<uint32_t>(dst, src, offsets, n, sb / 4);
  if (sb % 2 == 0) return ScatterWords<uint16_t>(dst, src, offsets, n, sb / 2);
  ScatterWords<uint8_t>(dst, src, offsets, n, sb);
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
