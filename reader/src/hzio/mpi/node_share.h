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

/// The ranks of one node (MPI_COMM_TYPE_SHARED) and the CPUs they may run on together: the union of
/// their affinity masks. A batch system's cpuset and mpiexec's binding narrow those masks; the node's
/// online CPUs would count CPUs that other jobs own.
struct NodeShare {
  int ranks = 1;
  int cpus = 1;
  int own_cpus = 1;  // those of this rank's own mask (the calling thread's when asked)
  /// Whether the ranks outnumber their CPUs (an oversubscribed node: its ranks take turns on the
  /// cores, and CPU time is what a read runs short of).
  bool ShortOfCpus() const { return ranks > cpus; }
};

/// This rank's node and its own mask. Collective over `comm`.
NodeShare ThisNode(MPI_Comm comm);

/// The CPUs one rank of `node` can keep busy by itself: those its affinity mask allows (1 under Open
/// MPI's default binding of up to 2 ranks, each to a core), and no more than its share of the
/// node's CPUs; at least 1.
int CpusPerRank(const NodeShare& node);

/// `threads` as an int; throws kInvalidArgument naming `option` ("placing_threads", "--threads", ...)
/// unless 0 <= threads <= kMaxThreadsPerRank (0: the default).
int CheckThreadsOption(int64_t threads, std::string_view option);

/// The threads a rank uses for a thread option: `threads` when > 0 (at most kMaxThreadsPerRank),
/// else CpusPerRank(node).
int ThreadsFor(int threads, const NodeShare& node);

}  // namespace hzio::mpi
