// The hints of a collective handle (hzio_mpi.h), read from an MPI_Info as MPI-IO reads its own:
// "memory_budget", "aggregators", "threads". Unknown keys and malformed values are errors naming
// them (kInvalidArgument): a hint misspelt is never silently without effect.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_writer.h"

namespace hzio::internal_c {

struct MpiHints {
  int64_t memory_budget = 0;  // 0: hzio::mpi's default
  int64_t aggregators = 0;    // 0: one per rank
  int threads = 0;            // 0: the cores the rank has to itself
};

/// The hints in `info` (MPI_INFO_NULL: none).
MpiHints ReadHints(MPI_Info info);

void Apply(const MpiHints& hints, mpi::WriteOptions& options);
void Apply(const MpiHints& hints, mpi::ReadOptions& options);

}  // namespace hzio::internal_c
