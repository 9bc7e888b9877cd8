// The steps and releases of a durable write's round (release_schedule.h): pure arithmetic on the
// aggregation plan, no MPI.
#include "hzio/mpi/release_schedule.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/parallel_writer.h"

namespace hzio::mpi {
namespace {

// S3D's fields at 64^3 per rank: 2^16-sample blocks, one file of 4 blocks per aggregator.
IdxHeader S3dHeader(int ranks) {
  return MakeHeader(Point{64, 64, 64 * ranks},
                    ParseFieldList("pressure:float64,temperature:float64,velocity:float64[3],species:float64[11]"), 1,
                    16, 4, "raw", "/tmp/visus.idx", ranks);
}

std::vector<std::string> Describe(const ReleaseSchedule& s) {
  std::vector<std::string> out;
  for (const ReleaseSchedule::Step& step : s.steps())
    out.push_back(std::to_string(step.field) + "." + std::to_string(step.part) + (step.release ? "+" : ""));
  return out;
}

// Every block of every aggregator lies in exactly one part of each field, the one whose step
// StageOf names, and the parts together are the round.
void ExpectPartsCoverTheRound(const ReleaseSchedule& s, const FileAggregation& plan, int nfields) {
  for (int f = 0; f < nfields; ++f) {
    std::vector<int> seen(static_cast<size_t>(plan.total_blocks()), 0);
    for (int part = 0; part < s.parts(f); ++part) {
      const std::vector<Span> units = s.PartUnits(f, part);
      for (size_t i = 1; i < units.size(); ++i) EXPECT_LT(units[i - 1].end, units[i].begin) << "sorted and merged";
      for (const Span& u : units)
        for (int64_t b = u.begin; b < u.end; ++b) {
          ++seen[static_cast<size_t>(b)];
          const int64_t agg = plan.AggregatorOfUnit(static_cast<uint64_t>(b));
          const ReleaseSchedule::Step& step = s.steps()[static_cast<size_t>(s.StageOf(f, agg, b))];
          EXPECT_EQ(step.field, f);
          EXPECT_EQ(step.part, part) << "block " << b;
        }
    }
    for (const Span& u : plan.RoundUnits())
      for (int64_t b = u.begin; b < u.end; ++b) EXPECT_EQ(seen[static_cast<size_t>(b)], 1) << "field " << f << " block " << b;
  }
}

// The species (88 of 128 bytes a sample) come in parts of one block per aggregator, each released:
// before this, 69% of the bytes waited for the end of the encoding.
TEST(ReleaseSchedule, TheLargestFieldIsReleasedInPartsOfEveryAggregatorsBlocks) {
  for (const int ranks : {1, 4, 8}) {
    const IdxHeader h = S3dHeader(ranks);
    const FileAggregation plan(h, 0, ranks);
    ASSERT_TRUE(plan.whole_files());
    const ReleaseSchedule s = ReleaseSchedule::Released(h, plan, 8, /*split_fields=*/true);
    // 88 * 8 / 128 = 5 parts, cut to the 4 blocks each aggregator holds.
    EXPECT_EQ(Describe(s), (std::vector<std::string>{"0.0", "1.0+", "2.0+", "3.0+", "3.1+", "3.2+", "3.3"})) << ranks;
    EXPECT_EQ(s.releases(), 5);
    ExpectPartsCoverTheRound(s, plan, 4);
    // Part p of the species: block p of every aggregator's file.
    std::vector<Span> expected;
    for (int64_t a = 0; a < plan.aggregators(); ++a) expected.push_back(Span{plan.Units(a).begin + 2, plan.Units(a).begin + 3});
    const std::vector<Span> part2 = s.PartUnits(3, 2);
    ASSERT_EQ(part2.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(part2[i].begin, expected[i].begin);
  }
}

// Without splitting (rounds that overlap each other's writes already keep the disk busy), fields
// are grouped as before: after temperature (16 of 128 bytes) and velocity.
TEST(ReleaseSchedule, UnsplitFieldsAreGroupedUntilAReleaseHoldsAnEighth) {
  const IdxHeader h = S3dHeader(4);
  const FileAggregation plan(h, 0, 4);
  const ReleaseSchedule s = ReleaseSchedule::Released(h, plan, 8, /*split_fields=*/false);
  EXPECT_EQ(Describe(s), (std::vector<std::string>{"0.0", "1.0+", "2.0+", "3.0"}));
  ExpectPartsCoverTheRound(s, plan, 4);
}

// A single field is released in parts too, up to max_releases of them; unsplit it has no release
// at all, and neither has a field of one block per aggregator.
TEST(ReleaseSchedule, ASingleFieldIsReleasedOnlyInParts) {
  const IdxHeader h = MakeHeader(Point{256, 256, 256}, ParseFieldList("density:float32"), 1, 16, 64, "raw",
                                 "/tmp/visus.idx", 2);
  const FileAggregation plan(h, 0, 2);  // 256 blocks in 4 files of 64: 128 blocks per aggregator
  const ReleaseSchedule split = ReleaseSchedule::Released(h, plan, 8, true);
  EXPECT_EQ(split.parts(0), 8);
  EXPECT_EQ(split.releases(), 7);
  ExpectPartsCoverTheRound(split, plan, 1);
  EXPECT_EQ(ReleaseSchedule::Released(h, plan, 8, false).releases(), 0);
  EXPECT_EQ(ReleaseSchedule::Released(h, plan, 8, false).steps().size(), 1u);

  const IdxHeader small = MakeHeader(Point{64, 64, 64}, ParseFieldList("density:float32"), 1, 16, 1, "raw",
                                     "/tmp/visus.idx", 4);
  const FileAggregation one_block_each(small, 0, 4);
  ASSERT_EQ(one_block_each.Units(0).size(), 1);
  EXPECT_EQ(ReleaseSchedule::Released(small, one_block_each, 8, true).releases(), 0);
}

// Without releases every field is one step, its stage its index (the files' pieces as before).
TEST(ReleaseSchedule, FieldByFieldIsOneStepPerField) {
  const IdxHeader h = S3dHeader(2);
  const FileAggregation plan(h, 0, 2);
  const ReleaseSchedule s = ReleaseSchedule::FieldByField(h, plan);
  EXPECT_EQ(Describe(s), (std::vector<std::string>{"0.0", "1.0", "2.0", "3.0"}));
  EXPECT_EQ(s.releases(), 0);
  for (int f = 0; f < 4; ++f) EXPECT_EQ(s.StageOf(f, 1, plan.Units(1).begin), f);
  ExpectPartsCoverTheRound(s, plan, 4);
}

}  // namespace
}  // namespace hzio::mpi
