/// Copying a sub-box between dense row-major arrays (x fastest, components contiguous) that cover
/// different boxes: the one data movement primitive of restructuring.
#pragma once

#include <cstdint>

#include <vector>

#include "hzio/format/field.h"
#include "hzio/util/box.h"

namespace hzio::mpi {

/// Copies the samples of `region` (inside both boxes) from `src` (row-major over `src_box`) to
/// `dst` (row-major over `dst_box`), `sample_bytes` per sample.
void CopyRegion(const Box& src_box, const uint8_t* src, const Box& dst_box, uint8_t* dst,
                const Box& region, int64_t sample_bytes);

/// One sample holding the field's default_value (idx-format.md §1.3) in its dtype, every component.
std::vector<uint8_t> DefaultSample(const Field& field);

/// Fills the samples of `region` (inside `box`) of `data` (row-major over `box`) with `sample`.
void FillRegion(const Box& box, uint8_t* data, const Box& region, const std::vector<uint8_t>& sample);

/// Fills `count` samples of `out` with `sample` (all zeros takes the memset path).
void FillSamples(uint8_t* out, int64_t count, const std::vector<uint8_t>& sample);

}  // namespace hzio::mpi
