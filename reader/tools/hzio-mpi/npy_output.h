// `hzio-mpi read --out`: the ranks' pieces of a read written as one .npy, collectively (MPI-IO).
#pragma once

#include <mpi.h>

#include <string>

#include "hzio/format/dtype.h"
#include "hzio/mpi/parallel_reader.h"

namespace hzio_mpi_tool {

/// Writes the result grid `whole` (C order (nz, ny, nx[, components]) of `dtype`) to `path`, each
/// rank placing its `piece` (or nothing when null); the pieces are cells of `whole`'s lattice
/// (same stride, disjoint). Written under a temporary name and renamed by rank 0 once complete,
/// so a failed write leaves no partial file at `path`. Collective; errors agreed on.
void WriteNpyCollectively(MPI_Comm comm, const std::string& path, const hzio::Grid& whole, const hzio::DType& dtype,
                          const hzio::mpi::BoxData* piece);

}  // namespace hzio_mpi_tool
