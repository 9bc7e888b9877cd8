/// Copying a sub-box between dense row-major arrays (x fastest, components contiguous) that cover
/// different boxes, and filling with one sample value: the data movement of the parallel writer's
/// restructuring and of the default fill of samples nobody wrote (idx-format.md §4.9).
#pragma once

#include <cstdint>

#include <vector>

#include "hzio/util/box.h"

namespace hzio {

/// Copies the samples of `region` (inside both boxes) from `src` (row-major over `src_box`) to
/// `dst` (row-major over `dst_box`), `sample_bytes` per sample.
void CopyRegion(const Box& src_box, const uint8_t* src, const Box& dst_box, uint8_t* dst,
                const Box& region, int64_t sample_bytes);

/// Fills the samples of `region` (inside `box`) of `data` (row-major over `box`) with `sample`.
void FillRegion(const Box& box, uint8_t* data, const Box& region, const std::vector<uint8_t>& sample);

/// Fills `count` samples of `out` with `sample` (all zeros takes the memset path).
void FillWithSample(uint8_t* out, int64_t count, const std::vector<uint8_t>& sample);

}  // namespace hzio
