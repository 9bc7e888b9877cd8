// The two subcommands of hzio-mpi (design.md §3). Each returns the process exit status.
#pragma once

#include <mpi.h>

namespace hzio_mpi_tool {

int RunWrite(MPI_Comm comm, int argc, char** argv);
int RunRead(MPI_Comm comm, int argc, char** argv);

}  // namespace hzio_mpi_tool
