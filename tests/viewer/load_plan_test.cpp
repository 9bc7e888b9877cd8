// Coarse-to-fine load steps from the shared planner's plan (viewer/src/load_plan.h).
#include <gtest/gtest.h>

#include "load_plan.h"

namespace hzio::viewer {
namespace {

const Box kBox{Point{0, 0, 0}, Point{256, 256, 256}};

BlockLayout Layout() { return BlockLayout(Bitmask::Guess(kBox.p2), 16); }

ViewPlan Plan(Box box, int level) {
  ViewPlan p;
  p.visible = true;
  p.box = box;
  p.level = level;
  return p;
}

TEST(LoadPlan, SamplesAndOverview) {
  const BlockLayout layout = Layout();
  EXPECT_EQ(layout.maxh(), 24);
  EXPECT_EQ(SamplesAt(layout, kBox, 24), int64_t{256} * 256 * 256);
  EXPECT_EQ(SamplesAt(layout, kBox, 21), int64_t{128} * 128 * 128);
  // 2^18 samples: the whole 256^3 box at stride 4.
  EXPECT_EQ(OverviewLevel(layout, kBox, int64_t{1} << 18), 18);
  EXPECT_EQ(OverviewLevel(layout, kBox, (int64_t{1} << 18) - 1), 17);
}

TEST(LoadPlan, CoarseToFineAboveTheOverview) {
  const BlockLayout layout = Layout();
  LoadPolicy policy;
  policy.floor_level = 12;
  const auto steps = PlanLoadSteps(layout, kBox, Plan(Box{Point{10, 20, 30}, Point{100, 90, 80}}, 24), policy);
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].level, 18);
  EXPECT_EQ(steps[1].level, 21);
  EXPECT_EQ(steps[2].level, 24);
  EXPECT_EQ(steps[2].box, (Box{Point{10, 20, 30}, Point{100, 90, 80}}));
  // Level 18 has stride 4: the box widens to multiples of 4.
  EXPECT_EQ(steps[0].box, (Box{Point{8, 20, 28}, Point{100, 92, 80}}));
  // Nothing at or below the overview level is loaded again.
  policy.floor_level = 18;
  const auto fewer = PlanLoadSteps(layout, kBox, Plan(kBox, 24), policy);
  ASSERT_EQ(fewer.size(), 2u);
  EXPECT_EQ(fewer[0].level, 21);
}

TEST(LoadPlan, BudgetLowersPlannedLevelButNotAnOverride) {
  const BlockLayout layout = Layout();
  LoadPolicy policy;
  policy.max_samples = int64_t{1} << 21;  // 128^3 = 2^21 fits, 256^3 does not
  const auto capped = PlanLoadSteps(layout, kBox, Plan(kBox, 24), policy);
  ASSERT_FALSE(capped.empty());
  EXPECT_EQ(capped.back().level, 21);
  policy.level_override = 23;
  const auto forced = PlanLoadSteps(layout, kBox, Plan(kBox, 15), policy);
  EXPECT_EQ(forced.back().level, 23);
}

TEST(LoadPlan, InvisibleLoadsNothing) {
  ViewPlan p;
  EXPECT_TRUE(PlanLoadSteps(Layout(), kBox, p, LoadPolicy{}).empty());
}

TEST(LoadPlan, Covers) {
  const LoadStep big{kBox, 21};
  EXPECT_TRUE(Covers(big, LoadStep{Box{Point{0, 0, 0}, Point{8, 8, 8}}, 21}));
  EXPECT_FALSE(Covers(big, LoadStep{Box{Point{0, 0, 0}, Point{8, 8, 8}}, 24}));  // finer wanted
  EXPECT_FALSE(Covers(LoadStep{Box{Point{0, 0, 0}, Point{8, 8, 8}}, 21}, big));   // bigger wanted
}

}  // namespace
}  // namespace hzio::viewer
