// The aggregators' window (mpi/aggregation_window.h): cached per communicator and regrown when an
// operation needs more, released on demand and with the communicator; in every kind a rank's
// stores and puts reach the others after a fence; buffered writes from it map its shared pages once.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hzio/mpi/aggregation_window.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/storage/write_source_pages.h"
#include "hzio/util/decomposition.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

using testing::AllRanks;
using testing::ExpectNoProblems;
using testing::Rank;
using testing::Ranks;
using testing::ScratchDir;
using testing::SyntheticSpec;

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

// A node-shared window's parts are the regions of its write sources: each part's pages are mapped
// into this process once, whatever the later writes from it; private memory (and an rma window's,
// which is this process's own) never is.
TEST(AggregationWindow, WriteSourcesAreTheNodesPartsMappedOnce) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // fresh windows, nothing mapped yet
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  for (const WindowKind kind : {WindowKind::kNodeShared, WindowKind::kRma}) {
    const std::shared_ptr<AggregationWindow> w = AggregationWindow::Acquire(comm, int64_t{1} << 20, kind);
    WriteSourceMap& sources = w->write_sources();
    bool ok = sources.mapped_bytes() == 0;
    std::vector<uint8_t> own(size_t{1} << 20, 1);
    const iovec private_memory{own.data(), own.size()};
    sources.Map(&private_memory, 1);
    ok &= sources.mapped_bytes() == 0;
    // The pages of this node's parts (adjacent parts may share a page).
    std::vector<std::pair<uintptr_t, uintptr_t>> pages;
    for (int r = 0; r < CommSize(comm); ++r)
      if (uint8_t* part = w->Direct(r)) {
        const iovec whole{part, static_cast<size_t>(w->size())};
        sources.Map(&whole, 1);
        sources.Map(&whole, 1);
        const auto at = reinterpret_cast<uintptr_t>(part);
        pages.emplace_back(at / page * page, (at + whole.iov_len + page - 1) / page * page);
      }
    std::sort(pages.begin(), pages.end());
    size_t union_bytes = 0;
    uintptr_t covered = 0;
    for (const auto& [lo, hi] : pages) {
      if (hi > std::max(lo, covered)) union_bytes += hi - std::max(lo, covered);
      covered = std::max(covered, hi);
    }
    if (w->kind() == WindowKind::kNodeShared)
      ok &= !pages.empty() && sources.mapped_bytes() == union_bytes;  // the parts on this node
    else
      ok &= pages.size() == 1 && sources.mapped_bytes() == 0;
    EXPECT_TRUE(AllRanks(ok, comm)) << "kind " << static_cast<int>(w->kind()) << ": " << sources.mapped_bytes()
                                    << " bytes mapped";
  }
  MPI_Comm_free(&comm);
}

// The parallel writer's buffered writes go through the window's write sources: after a write into
// the page cache the aggregators have mapped the pages they wrote from, and the dataset is right.
TEST(AggregationWindow, BufferedParallelWritesMapTheWindowPagesTheyWriteFrom) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  {
    ScratchDir dir(comm);
    SyntheticSpec spec;
    spec.dims = Point{64, 64, 64};
    spec.fields = "p:float64";  // 2 MiB, in files of 1 MiB: every aggregator writes 1 MiB or more
    spec.bits_per_block = 14;
    spec.blocks_per_file = 8;
    WriteOptions one_aggregator;
    one_aggregator.aggregators = 1;  // its part is filled by every rank
    const std::string idx = dir.File("buffered/visus.idx");
    testing::WriteSynthetic(comm, idx, spec, DefaultGrid(CommSize(comm), 3), 1, one_aggregator);
    ExpectNoProblems(testing::VerifySerialAllLevels(comm, idx));
    const std::shared_ptr<AggregationWindow> w = AggregationWindow::Acquire(comm, 1, WindowKind::kNodeShared);
    const size_t mapped = w->write_sources().mapped_bytes();
    const bool ok = w->kind() == WindowKind::kRma ? mapped == 0 : (Rank() == 0) == (mapped >= (size_t{1} << 20));
    EXPECT_TRUE(AllRanks(ok, comm)) << mapped << " bytes of the window mapped on rank " << Rank();
  }
  MPI_Comm_free(&comm);
}

}  // namespace
}  // namespace hzio::mpi
