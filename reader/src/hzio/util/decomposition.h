/// Domain decompositions used by the `hzio-mpi` driver, the tests and the benchmarks (design.md §3):
/// an even grid split (remainders to the first cells, so non-divisible sizes give irregular
/// boxes) and the `--blocks-per-rank` pattern (every rank's box cut into K pieces dealt out with a
/// fixed shuffle, the load-balanced/AMR pattern where a rank owns K non-adjacent pieces).
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/util/box.h"

namespace hzio {

/// Cell `index` (x fastest) of `box` split into `grid` cells per axis; the first
/// `size % grid` cells of an axis get one extra sample.
Box GridCell(const Box& box, const Point& grid, int64_t index);

/// A grid of `ranks` cells for `dims` axes (MPI_Dims_create-like, largest factors on the slowest
/// axes, as S3D-IO does), used when the user gives no --grid.
Point DefaultGrid(int ranks, int dims);

/// Parses "PX,PY[,PZ]"; throws kInvalidArgument naming the text.
Point ParseGrid(const std::string& text, int dims);

/// The pieces owned by `rank` when each of the `ranks` grid cells is cut into `pieces_per_rank`
/// pieces and all pieces are dealt out by a fixed pseudo-random permutation (each rank gets
/// exactly `pieces_per_rank`; with 1 the rank simply owns its grid cell). Empty pieces (a cell
/// thinner than the cut) are dropped.
std::vector<Box> RankPieces(const Box& domain, const Point& grid, int64_t pieces_per_rank, int rank);

}  // namespace hzio
