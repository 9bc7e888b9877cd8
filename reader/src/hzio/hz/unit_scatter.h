/// Scattering a hz-ordered block straight into a row-major array (idx-format.md §3.1, §4.1): the
/// destination offset of each of its samples, and the scatter. One pass over the samples instead
/// of a permutation into the block's own grid and a copy from there into the array.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/hz/block_layout.h"

namespace hzio {

/// dst[offsets[h]] = src[h] for h < n, samples of `sample_bytes` each.
void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sample_bytes);

/// For a block of `level` (`layout.BlockLevel`) placed whole into a row-major array of
/// `dst_count` samples per axis, consecutive samples of its grid's axis d `dst_step[d]` apart
/// along that axis: offsets[h] = the array index of its in-block hz sample h, relative to the
/// index of its grid's first sample. Empty when an offset would not fit 32 bits.
std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count);

}  // namespace hzio
