/// The synthetic data of design.md §4, shared by the `hzio-mpi` driver, its `--verify`, the tests
/// and the benchmarks: field f, component c, timestep t, point (x,y,z), s = x + 1000 y + 10^6 z;
/// floats get double(s) + 0.125 c + 0.0625 f + 1e9 t rounded to the dtype, integers of b bits get
/// (s + 7c + 11f + 13t) mod 2^b as the unsigned bit pattern.
#pragma once

#include <cstdint>

#include "hzio/format/dtype.h"
#include "hzio/hz/grid.h"

namespace hzio {

/// Fills `out` (row-major over `grid.count`, components contiguous) with the §4 values at the
/// grid's positions. Throws kUnsupported for dtypes the formula does not cover (e.g. float16).
void FillSynthetic(const DType& dtype, int field, int64_t time, const Grid& grid, uint8_t* out);

/// Index of the first sample of `data` (row-major over `grid`) that differs from the §4 values,
/// or -1 when all are equal (bit-exact comparison).
int64_t FirstSyntheticMismatch(const DType& dtype, int field, int64_t time, const Grid& grid,
                               const uint8_t* data);

/// Dense grid covering a box (stride 1).
Grid DenseGrid(const Box& box);

}  // namespace hzio
