/// What one rank may use of the machine it runs on: the ranks of a node (MPI_COMM_TYPE_SHARED)
/// share its memory and its CPUs.
#pragma once

#include <mpi.h>

namespace hzio::mpi {

/// How many ranks of `comm` run on this rank's node. Collective.
int NodeRanks(MPI_Comm comm);

/// The CPUs one of `node_ranks` ranks of a node can keep busy by itself: those its affinity mask
/// allows (1 under Open MPI's default binding of up to 2 ranks, each to a core), and no more than
/// its share of the node's online CPUs; at least 1.
int CpusPerRank(int node_ranks);

}  // namespace hzio::mpi
