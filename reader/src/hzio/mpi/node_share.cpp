#include "hzio/mpi/node_share.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "hzio/mpi/collective.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

int NodeRanks(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MpiCheck(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, CommRank(comm), MPI_INFO_NULL, &node),
           "MPI_Comm_split_type");
  const int ranks = CommSize(node);
  MPI_Comm_free(&node);
  return ranks;
}

int CpusPerRank(int node_ranks) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const long allowed = ::sched_getaffinity(0, sizeof(mask), &mask) == 0 ? CPU_COUNT(&mask) : 1;
  const long share = online > 0 ? online / std::max(node_ranks, 1) : 1;
  return static_cast<int>(std::max(1L, std::min(allowed, share)));
}

bool NodeShortOfCpus(int node_ranks) {
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 && node_ranks > online;
}

int CheckThreadsOption(int64_t threads, std::string_view option) {
  Check(threads >= 0 && threads <= kMaxThreadsPerRank, ErrorCode::kInvalidArgument,
        std::string(option) + " " + std::to_string(threads) + " is outside 0.." + std::to_string(kMaxThreadsPerRank) +
            " (0: the CPUs this rank has)");
  return static_cast<int>(threads);
}

int ThreadsFor(int threads, int node_ranks) {
  return threads > 0 ? std::min(threads, kMaxThreadsPerRank) : CpusPerRank(node_ranks);
}

}  // namespace hzio::mpi
