// Who reads each unit of a two-phase read (unit_readers.h): the marks' reduction operator, the
// split every rank derives from the reduced marks, and the reduction itself at every rank count.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hzio/mpi/unit_readers.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

using testing::AllRanks;
using testing::Rank;
using testing::Ranks;

TEST(UnitReaders, CombiningMarksKeepsALoneReaderAndSharesUnitsOfSeveral) {
  EXPECT_EQ(CombineReaders(kNoReader, kNoReader), kNoReader);
  EXPECT_EQ(CombineReaders(kNoReader, 3), 3);
  EXPECT_EQ(CombineReaders(3, kNoReader), 3);
  EXPECT_EQ(CombineReaders(3, 3), 3);
  EXPECT_EQ(CombineReaders(0, 3), kSharedUnit);
  EXPECT_EQ(CombineReaders(3, 0), kSharedUnit);
  EXPECT_EQ(CombineReaders(kSharedUnit, kNoReader), kSharedUnit);
  EXPECT_EQ(CombineReaders(kNoReader, kSharedUnit), kSharedUnit);
  EXPECT_EQ(CombineReaders(kSharedUnit, 2), kSharedUnit);
  EXPECT_EQ(CombineReaders(2, kSharedUnit), kSharedUnit);
}

TEST(UnitReaders, EveryRankReadsAsManyOfItsUnitsAsTheRankWithTheFewest) {
  const std::vector<uint64_t> units{3, 5, 8, 9, 12, 13, 20, 21, 22, 30};
  const std::vector<int32_t> readers{0, 0, 1, kSharedUnit, 1, 2, 2, 2, kNoReader, 0};
  // Owned: rank 0 three units, rank 1 two, rank 2 three: each reads two of its own, its first.
  const UnitSplit r0 = SplitUnits(units, readers, 3, 0), r1 = SplitUnits(units, readers, 3, 1),
                  r2 = SplitUnits(units, readers, 3, 2);
  EXPECT_EQ(r0.own, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(r1.own, (std::vector<uint64_t>{8, 12}));
  EXPECT_EQ(r2.own, (std::vector<uint64_t>{13, 20}));
  for (const UnitSplit& s : {r0, r1, r2}) {  // the same split on every rank; unit 22 nobody needs
    EXPECT_TRUE(s.any_own);
    EXPECT_EQ(s.shared, (std::vector<uint64_t>{9, 21, 30}));
  }
  // A rank that reads nothing of its own (it needs nothing, or shares what it needs) leaves every
  // unit to the aggregators.
  const std::vector<int32_t> idle{0, 0, 2, kSharedUnit, 2, 2, 0, 0, kNoReader, 0};
  for (int rank = 0; rank < 3; ++rank) {
    const UnitSplit s = SplitUnits(units, idle, 3, rank);
    EXPECT_FALSE(s.any_own);
    EXPECT_TRUE(s.own.empty());
    EXPECT_EQ(s.shared, (std::vector<uint64_t>{3, 5, 8, 9, 12, 13, 20, 21, 30}));
  }
  // One rank reads everything it needs for itself; a shared mark stays shared.
  const UnitSplit alone = SplitUnits(units, std::vector<int32_t>{0, 0, 0, 0, kNoReader, 0, 0, kSharedUnit, 0, 0}, 1, 0);
  EXPECT_EQ(alone.own, (std::vector<uint64_t>{3, 5, 8, 9, 13, 20, 22, 30}));
  EXPECT_EQ(alone.shared, (std::vector<uint64_t>{21}));
  EXPECT_THROW(SplitUnits(units, std::vector<int32_t>{0}, 1, 0), Error);
  // A minimum of own units: two each are enough for 2, not for 3 (then every unit is shared); a
  // single rank that needs everything alone reads it all whatever the minimum.
  EXPECT_EQ(SplitUnits(units, readers, 3, 1, 2).own, (std::vector<uint64_t>{8, 12}));
  for (int rank = 0; rank < 3; ++rank) {
    const UnitSplit s = SplitUnits(units, readers, 3, rank, 3);
    EXPECT_FALSE(s.any_own);
    EXPECT_EQ(s.shared, (std::vector<uint64_t>{3, 5, 8, 9, 12, 13, 20, 21, 30}));
  }
  const std::vector<int32_t> all_mine{0, 0, 0, 0, kNoReader, 0, 0, 0, 0, 0};
  EXPECT_EQ(SplitUnits(units, all_mine, 1, 0, 1000).own.size(), 9u);
}

// The mean run of own units: consecutive unit numbers of one reader; shared and unneeded units,
// a gap in the numbers or another reader end a run.
TEST(UnitReaders, MeanOwnRunCountsConsecutiveUnitsOfOneReader) {
  const std::vector<uint64_t> units{3, 4, 5, 6, 8, 9, 10, 11, 12, 13};
  // Runs: {3, 4, 5} of rank 0; {6} of rank 1 (another reader); {8, 9} of rank 1 (a gap before 8);
  // 10 shared, 11 nobody's; {12, 13} of rank 0: 8 own units in 4 runs.
  const std::vector<int32_t> readers{0, 0, 0, 1, 1, 1, kSharedUnit, kNoReader, 0, 0};
  EXPECT_EQ(MeanOwnRunBytes(units, readers, 1000), 2000);
  EXPECT_EQ(MeanOwnRunBytes(units, std::vector<int32_t>(units.size(), 2), 1000), 5000) << "{3..6}, {8..13}";
  EXPECT_EQ(MeanOwnRunBytes(units, std::vector<int32_t>(units.size(), kSharedUnit), 1000), 0);
  EXPECT_EQ(MeanOwnRunBytes({}, {}, 1000), 0);
  EXPECT_THROW(MeanOwnRunBytes(units, std::vector<int32_t>{0}, 1000), Error);
}

// Each rank marks the units i with i % ranks == rank and unit 0: after the reduction unit 0 is
// shared (one rank: its own), the others belong to their rank, and unmarked ones to nobody.
TEST(UnitReaders, ReductionTellsEveryRankEachUnitsReader) {
  const int32_t n = 1000;
  std::vector<int32_t> marks(static_cast<size_t>(n) + 5, kNoReader);
  marks[0] = Rank();
  for (int32_t i = 1; i < n; ++i)
    if (i % Ranks() == Rank()) marks[static_cast<size_t>(i)] = Rank();
  ReduceReaders(MPI_COMM_WORLD, marks);
  bool ok = marks[0] == (Ranks() == 1 ? 0 : kSharedUnit);
  for (int32_t i = 1; i < n; ++i) ok = ok && marks[static_cast<size_t>(i)] == i % Ranks();
  for (int32_t i = n; i < n + 5; ++i) ok = ok && marks[static_cast<size_t>(i)] == kNoReader;
  EXPECT_TRUE(AllRanks(ok));
}

}  // namespace
}  // namespace hzio::mpi
