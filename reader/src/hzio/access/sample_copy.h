/// Copies samples between two row-major grids along a per-axis plan (hz/grid.h PlanGridCopy),
/// optionally through an index table on either side (the hz-order permutation of a block,
/// BlockLayout::RowMajorToHz). This is the only per-sample loop of reads and writes: no level
/// tests, no HZ arithmetic, just strided moves specialised by sample size.
#pragma once

#include <cstdint>

#include "hzio/hz/grid.h"

namespace hzio {

/// One side of a copy: memory holding a row-major grid of `count` samples, and an optional table
/// mapping the grid's row-major index to the sample's position in memory.
struct SampleSide {
  uint8_t* data;
  Point count;
  const uint32_t* index_map = nullptr;
};

/// Moves the planned samples from `src` to `dst`; samples are `sample_bytes` long. With `stream`,
/// contiguous destination rows are written with streaming stores (util/stream_copy.h): for
/// destinations far larger than the caches, which nobody reads soon.
void CopySamples(const AxisCopy (&plan)[kMaxDims], int dims, const SampleSide& src,
                 const SampleSide& dst, int64_t sample_bytes, bool stream = false);

/// Writes `value` (one sample) at every planned destination position (the plan's dst side).
void FillSamples(const AxisCopy (&plan)[kMaxDims], int dims, const SampleSide& dst,
                 const uint8_t* value, int64_t sample_bytes);

/// Fills `bytes` of memory (a multiple of `sample_bytes`) with copies of one sample: a few
/// memcpy calls of doubling size, not one per sample.
void FillRepeated(uint8_t* data, size_t bytes, const uint8_t* value, size_t sample_bytes);

/// Number of samples a plan moves.
int64_t PlannedSamples(const AxisCopy (&plan)[kMaxDims], int dims);

}  // namespace hzio
