// ThisNode: the ranks of a node and the CPUs their affinity masks allow together (node_share.h).
#include "hzio/mpi/node_share.h"

#include <gtest/gtest.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

using testing::AllRanks;
using testing::Rank;
using testing::Ranks;

cpu_set_t CurrentMask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(mask), &mask), 0);
  return mask;
}

// The CPUs any rank of the world may run on, in ascending order (the tests run on one node).
std::vector<int> WorldCpus() {
  const cpu_set_t own = CurrentMask();
  cpu_set_t all;
  CPU_ZERO(&all);
  MPI_Allreduce(&own, &all, static_cast<int>(sizeof(cpu_set_t) / sizeof(uint64_t)), MPI_UINT64_T, MPI_BOR,
                MPI_COMM_WORLD);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) cpus.push_back(c);
  return cpus;
}

// Pins the calling thread to one CPU while it lives, then gives it its mask back.
class PinnedTo {
 public:
  explicit PinnedTo(int cpu) : saved_(CurrentMask()) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(cpu, &mask);
    pinned_ = ::sched_setaffinity(0, sizeof(mask), &mask) == 0;
  }
  ~PinnedTo() { ::sched_setaffinity(0, sizeof(saved_), &saved_); }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

// Pure: a rank's own mask, at most its share of the node's CPUs, at least 1.
TEST(NodeShare, CpusPerRankIsTheOwnMaskCappedByTheShare) {
  EXPECT_EQ(CpusPerRank(NodeShare{2, 8, 8}), 4);  // unbound ranks split the node
  EXPECT_EQ(CpusPerRank(NodeShare{2, 8, 1}), 1);  // bound to one core each
  EXPECT_EQ(CpusPerRank(NodeShare{1, 2, 2}), 2);  // one rank with both cores
  EXPECT_EQ(CpusPerRank(NodeShare{4, 2, 2}), 1);  // oversubscribed
}

TEST(NodeShare, RanksPinnedToOneCpuHaveOneCpuBetweenThem) {
  const std::vector<int> cpus = WorldCpus();
  const PinnedTo pin(cpus.front());
  if (!AllRanks(pin.pinned())) GTEST_SKIP() << "a rank cannot be pinned to CPU " << cpus.front();
  const NodeShare node = ThisNode(MPI_COMM_WORLD);
  EXPECT_EQ(node.ranks, Ranks());
  EXPECT_EQ(node.cpus, 1);  // however many CPUs the machine has online
  EXPECT_EQ(node.ShortOfCpus(), Ranks() > 1);
  EXPECT_EQ(CpusPerRank(node), 1);
  EXPECT_EQ(ThreadsFor(0, node), 1);
  EXPECT_EQ(ThreadsFor(3, node), 3);  // asked for: as many as asked
}

TEST(NodeShare, RanksPinnedToCpusOfTheirOwnCountTheirUnion) {
  const std::vector<int> cpus = WorldCpus();
  const PinnedTo pin(cpus[static_cast<size_t>(Rank()) % cpus.size()]);
  if (!AllRanks(pin.pinned())) GTEST_SKIP() << "a rank cannot be pinned to a CPU of its own";
  const NodeShare node = ThisNode(MPI_COMM_WORLD);
  const int distinct = std::min<int>(Ranks(), static_cast<int>(cpus.size()));
  EXPECT_EQ(node.cpus, distinct);
  EXPECT_EQ(node.ShortOfCpus(), Ranks() > static_cast<int>(cpus.size()));
  EXPECT_EQ(CpusPerRank(node), 1);  // a mask of one CPU
}

TEST(NodeShare, AsLaunchedTheNodeHasTheCpusOfItsRanksMasks) {
  const NodeShare node = ThisNode(MPI_COMM_WORLD);
  EXPECT_EQ(node.ranks, Ranks());
  EXPECT_EQ(node.cpus, static_cast<int>(WorldCpus().size()));
  EXPECT_LE(node.cpus, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  const cpu_set_t own = CurrentMask();
  EXPECT_EQ(node.own_cpus, CPU_COUNT(&own));
  EXPECT_GE(CpusPerRank(node), 1);
  EXPECT_LE(CpusPerRank(node), CPU_COUNT(&own));
  EXPECT_LE(CpusPerRank(node) * node.ranks, std::max(node.cpus, node.ranks));
}

}  // namespace
}  // namespace hzio::mpi
