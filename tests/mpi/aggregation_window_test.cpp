// The aggregators' window (mpi/aggregation_window.h): cached per communicator and regrown when an
// operation needs more, released on demand and with the communicator; in every kind a rank's
// stores and puts reach the others after a fence.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "hzio/mpi/aggregation_window.h"
#include "hzio/mpi/collective.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

using testing::AllRanks;

using testing::Rank;
using testing::Ranks;

TEST(AggregationWindow, IsCachedRegrownAndReleasedCollectively) {
  for (const WindowKind kind : {WindowKind::kNodeShared, WindowKind::kRma}) {
    AggregationWindow::ReleaseCached(MPI_COMM_WORLD);
    const std::shared_ptr<AggregationWindow> first = AggregationWindow::Acquire(MPI_COMM_WORLD, 1000, kind);
    EXPECT_GE(first->size(), 1000);
    EXPECT_EQ(AggregationWindow::Acquire(MPI_COMM_WORLD, 10, kind), first) << "a smaller need reuses it";
    const std::shared_ptr<AggregationWindow> larger = AggregationWindow::Acquire(MPI_COMM_WORLD, first->size() + 1, kind);
    EXPECT_NE(larger, first);
    EXPECT_GT(larger->size(), first->size());
    AggregationWindow::ReleaseCached(MPI_COMM_WORLD);
    EXPECT_NE(AggregationWindow::Acquire(MPI_COMM_WORLD, 10, kind), larger) << "released, then made again";
    // Larger than what is kept: a fresh window every time.
    const int64_t big = AggregationWindow::kMaxCachedBytes + 1;
    const std::shared_ptr<AggregationWindow> a = AggregationWindow::Acquire(MPI_COMM_WORLD, big, kind);
    EXPECT_EQ(a.use_count(), 1) << "not kept in the cache";
  }
}

// Every rank writes its rank number into every other rank's part (a store where Direct() allows
// it, else a put) and reads all of them back (a load or a get): what a writer and a reader do.
void ExpectEveryRankReachesEveryPart(MPI_Comm comm, WindowKind kind) {
  const int me = CommRank(comm), n = CommSize(comm);
  const std::shared_ptr<AggregationWindow> w = AggregationWindow::Acquire(comm, 8 * int64_t{n}, kind);
  w->Fence(MPI_MODE_NOPRECEDE);
  const int64_t value = 1000 + me;
  for (int target = 0; target < n; ++target) {
    if (uint8_t* part = w->Direct(target))
      std::memcpy(part + 8 * me, &value, 8);
    else
      w->Put(reinterpret_cast<const uint8_t*>(&value), 8, target, 8 * me);
  }
  w->Fence();
  std::vector<int64_t> got(static_cast<size_t>(n) * static_cast<size_t>(n), -1);
  for (int target = 0; target < n; ++target) {
    uint8_t* dst = reinterpret_cast<uint8_t*>(got.data() + static_cast<size_t>(target) * static_cast<size_t>(n));
    if (const uint8_t* part = w->Direct(target))
      std::memcpy(dst, part, static_cast<size_t>(8 * n));
    else
      w->Get(dst, 8 * n, target, 0);
  }
  w->Fence(MPI_MODE_NOSUCCEED);
  bool ok = true;
  for (int target = 0; target < n; ++target)
    for (int from = 0; from < n; ++from) ok &= got[static_cast<size_t>(target * n + from)] == 1000 + from;
  EXPECT_TRUE(AllRanks(ok, comm)) << "kind " << static_cast<int>(kind);
}

TEST(AggregationWindow, StoresAndPutsReachEveryRankAfterAFence) {
  for (const WindowKind kind : {WindowKind::kNodeShared, WindowKind::kRma})
    ExpectEveryRankReachesEveryPart(MPI_COMM_WORLD, kind);
  // On a communicator that is then freed: its cached windows go with it, on every rank.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, Rank() % 2, Rank(), &half);
  ExpectEveryRankReachesEveryPart(half, WindowKind::kNodeShared);
  MPI_Comm_free(&half);
  EXPECT_TRUE(AllRanks(true));
  if (Ranks() > 1 && Rank() == 0) {
    const std::shared_ptr<AggregationWindow> w = AggregationWindow::Acquire(MPI_COMM_SELF, 64, WindowKind::kNodeShared);
    EXPECT_EQ(w->kind(), WindowKind::kRma) << "a rank alone gains nothing from sharing";
  }
}

}  // namespace
}  // namespace hzio::mpi
