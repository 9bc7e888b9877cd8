/// What one rank may use of the machine it runs on: the ranks of a node (MPI_COMM_TYPE_SHARED)
/// share its memory and its CPUs.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string_view>

namespace hzio::mpi {

/// The most threads a rank may be asked to use (ReadOptions::placing_threads,
/// WriteOptions::encoding_threads).
inline constexpr int kMaxThreadsPerRank = 256;

/// How many ranks of `comm` run on this rank's node. Collective.
int NodeRanks(MPI_Comm comm);

/// The CPUs one of `node_ranks` ranks of a node can keep busy by itself: those its affinity mask
/// allows (1 under Open MPI's default binding of up to 2 ranks, each to a core), and no more than
/// its share of the node's online CPUs; at least 1.
int CpusPerRank(int node_ranks);

/// Whether the `node_ranks` ranks of this node outnumber its online CPUs (an oversubscribed node:
/// its ranks take turns on the cores, and CPU time is what a read runs short of).
bool NodeShortOfCpus(int node_ranks);

/// `threads` as an int; throws kInvalidArgument naming `option` ("placing_threads", "--threads", ...)
/// unless 0 <= threads <= kMaxThreadsPerRank (0: the default).
int CheckThreadsOption(int64_t threads, std::string_view option);

/// The threads a rank uses for a thread option: `threads` when > 0 (at most kMaxThreadsPerRank),
/// else CpusPerRank(node_ranks).
int ThreadsFor(int threads, int node_ranks);

}  // namespace hzio::mpi
