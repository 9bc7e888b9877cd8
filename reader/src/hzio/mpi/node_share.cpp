#include "hzio/mpi/node_share.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hzio/mpi/collective.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

namespace {

// This thread's affinity mask; where the kernel's mask does not fit a cpu_set_t (over
// CPU_SETSIZE CPUs), every online CPU.
cpu_set_t OwnMask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (::sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0) return mask;
  const long online = std::clamp<long>(::sysconf(_SC_NPROCESSORS_ONLN), 1, CPU_SETSIZE);
  for (long c = 0; c < online; ++c) CPU_SET(static_cast<int>(c), &mask);
  return mask;
}

}  // namespace

NodeShare ThisNode(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  MpiCheck(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, CommRank(comm), MPI_INFO_NULL, &node),
           "MPI_Comm_split_type");
  // The union of the ranks' masks: a bitwise OR of the sets' words.
  static_assert(sizeof(cpu_set_t) % sizeof(uint64_t) == 0);
  const cpu_set_t own = OwnMask();
  cpu_set_t all;
  CPU_ZERO(&all);
  const int words = static_cast<int>(sizeof(cpu_set_t) / sizeof(uint64_t));
  const int rc = MPI_Allreduce(&own, &all, words, MPI_UINT64_T, MPI_BOR, node);
  NodeShare share;
  share.ranks = CommSize(node);
  MPI_Comm_free(&node);
  MpiCheck(rc, "MPI_Allreduce");
  share.cpus = std::max(1, CPU_COUNT(&all));
  share.own_cpus = CPU_COUNT(&own);
  return share;
}

int CpusPerRank(const NodeShare& node) {
  return std::max(1, std::min(node.own_cpus, node.cpus / std::max(node.ranks, 1)));
}

int CheckThreadsOption(int64_t threads, std::string_view option) {
  Check(threads >= 0 && threads <= kMaxThreadsPerRank, ErrorCode::kInvalidArgument,
        std::string(option) + " " + std::to_string(threads) + " is outside 0.." + std::to_string(kMaxThreadsPerRank) +
            " (0: the CPUs this rank has)");
  return static_cast<int>(threads);
}

int ThreadsFor(int threads, const NodeShare& node) {
  return threads > 0 ? std::min(threads, kMaxThreadsPerRank) : CpusPerRank(node);
}

}  // namespace hzio::mpi
