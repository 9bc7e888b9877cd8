// hzio-mpi: the parallel write/read driver (design.md §3). Thin: the work is in hzio::mpi.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"
#include "hzio/util/error.h"

namespace {

constexpr const char* kUsage =
    "usage:\n"
    "  mpiexec -n N hzio-mpi write OUT.idx --dims X,Y,Z [--grid PX,PY,PZ] [--blocks-per-rank K]\n"
    "      [--fields \"pressure:float64,temperature:float64,velocity:float64[3],species:float64[11]\"]\n"
    "      [--timesteps T] [--bitsperblock N] [--blocksperfile N] [--restructure default|expanded|AxBxC]\n"
    "      [--aggregators K] [--compression raw|zip|lz4] [--sync [--no-direct-io]] [--wait]\n"
    "      [--memory-budget BYTES] [--[no-]overlap] [--pidx-compatible] [--threads N] [--json]\n"
    "  mpiexec -n M hzio-mpi read IN.idx [--grid PX,PY,PZ] [--box BOX] [--level H|H1,H2,..|all] [--field NAME]\n"
    "      [--time T] [--mode two-phase|one-phase] [--aggregators K] [--memory-budget BYTES] [--overlap]\n"
    "      [--results-budget BYTES] [--direct-io|--no-direct-io] [--no-owner-reads] [--verify] [--out OUT.npy]\n"
    "      [--threads N] [--json]\n"
    "\n"
    "write replaces OUT.idx as one transaction: the old dataset stays readable until the new one\n"
    "commits (a new generation of its data directory, then one rename of OUT.idx). --sync flushes\n"
    "the data to disk first (files an aggregator writes whole go around the page cache with O_DIRECT\n"
    "where the file system allows it; --no-direct-io keeps them buffered); --wait waits while another\n"
    "writer holds OUT.idx.lock (default: fail). --blocksperfile defaults to files of at most 128 MiB,\n"
    "cut so that each rank writes files of its own.\n"
    "--memory-budget (e.g. 512m, 2g) bounds each rank's aggregation buffer: a larger checkpoint or\n"
    "read goes in rounds (same bytes). Default 256m (less on a node short of memory). A durable write\n"
    "in rounds (or one whose ranks have a spare CPU each) writes each round's files on an I/O thread\n"
    "while the next round is encoded, in two halves of the budget; --overlap always does, --no-overlap\n"
    "never (one round after the other). read --overlap reads round r+1's files on an I/O thread while\n"
    "round r is exchanged, in two halves of the budget (off by default).\n"
    "read takes several fields in one read (one pass over each file) while their results on a rank fit in\n"
    "--results-budget (default 1g), else in groups that do. A rank reads a file past the page cache\n"
    "(O_DIRECT where the file system allows it) when most of what it reads there is not cached;\n"
    "--direct-io always does, --no-direct-io never. --no-owner-reads sends every block through the\n"
    "aggregators, even those only one rank needs.\n"
    "--threads: how many threads of each rank HZ-encode its cells (write) or place the units it reads\n"
    "for itself (read). Default: the CPUs the rank has to itself, 1 where each rank is bound to a core\n"
    "(mpiexec binds up to 2 ranks by default; give a rank more with --map-by slot:PE=N or --bind-to none).\n"
    "--pidx-compatible writes what PIDX 0.9.3 reads too\n"
    "(the block-file names PIDX derives, 3*float64 dtypes; raw 3-D fields of 1-4 components only):\n"
    "an existing OUT.idx is then removed before the write instead of staying readable until the commit.\n"
    "read --out writes what the ranks read (the --box at each level) to one .npy, (nz, ny, nx[, c]),\n"
    "with {field} and {level} in its name replaced when several fields or levels are read.\n";

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int status = 2;
  const std::string cmd = argc > 1 ? argv[1] : "";
  try {
    if (cmd == "write") {
      status = hzio_mpi_tool::RunWrite(MPI_COMM_WORLD, argc, argv);
    } else if (cmd == "read") {
      status = hzio_mpi_tool::RunRead(MPI_COMM_WORLD, argc, argv);
    } else {
      if (rank == 0) std::fputs(kUsage, cmd == "--help" || cmd == "-h" ? stdout : stderr);
      status = cmd == "--help" || cmd == "-h" ? 0 : 2;
    }
  } catch (const std::exception& e) {
    // Collective calls raise the same error on every rank; rank 0 reports it once.
    if (rank == 0) std::fprintf(stderr, "hzio-mpi %s: %s\n", cmd.c_str(), e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
