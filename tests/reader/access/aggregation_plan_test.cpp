// Aggregation plans (access/aggregation_plan.h): even splits and their inverse, aggregator placement.
#include "hzio/access/aggregation_plan.h"

#include <gtest/gtest.h>

namespace hzio {
namespace {

TEST(AggregationPlan, EvenSplitOwnerInvertsEvenSplit) {
  for (int64_t n = 1; n <= 40; ++n)
    for (int64_t parts = 1; parts <= 12; ++parts) {
      int64_t covered = 0;
      for (int64_t p = 0; p < parts; ++p) {
        const Span s = EvenSplit(n, parts, p);
        EXPECT_LE(s.size(), n / parts + 1);
        EXPECT_GE(s.size(), n / parts);
        for (int64_t i = s.begin; i < s.end; ++i) EXPECT_EQ(EvenSplitOwner(n, parts, i), p) << n << " " << parts;
        covered += s.size();
      }
      EXPECT_EQ(covered, n);
    }
}

TEST(AggregationPlan, AggregatorsAreSpreadAndFoundBack) {
  for (int ranks = 1; ranks <= 16; ++ranks)
    for (int64_t aggs = 1; aggs <= ranks; ++aggs) {
      int64_t found = 0;
      for (int r = 0; r < ranks; ++r) {
        const int64_t a = AggregatorOfRank(r, aggs, ranks);
        if (a >= 0) {
          EXPECT_EQ(AggregatorRank(a, aggs, ranks), r);
          ++found;
        }
      }
      EXPECT_EQ(found, aggs);
    }
}

// Huge counts do not overflow (the plan multiplies two 64-bit counts).
TEST(AggregationPlan, HugeCountsSplitExactly) {
  const int64_t n = int64_t{1} << 62;
  int64_t covered = 0;
  for (int64_t p = 0; p < 7; ++p) covered += EvenSplit(n, 7, p).size();
  EXPECT_EQ(covered, n);
  EXPECT_EQ(EvenSplitOwner(n, 7, n - 1), 6);
}

}  // namespace
}  // namespace hzio
