#include "load_plan.h"

#include <algorithm>

namespace hzio::viewer {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

int64_t SamplesAt(const BlockLayout& layout, const Box& box, int level) {
  return layout.QueryGrid(box, LevelRange{0, level}).NumSamples();
}

int OverviewLevel(const BlockLayout& layout, const Box& dataset_box, int64_t max_samples) {
  int best = 0;
  for (int h = 0; h <= layout.maxh(); ++h) {
    if (SamplesAt(layout, dataset_box, h) > max_samples) break;
    best = h;
  }
  return best;
}

Box AlignToLevel(const Bitmask& bitmask, const Box& box, int level, const Box& dataset_box) {
  const Point stride = bitmask.CumulativeStride(level);
  Box aligned = box;
  for (int d = 0; d < box.dims(); ++d) {
    const int64_t s = stride[d];
    aligned.p1[d] = std::max(FloorDiv(box.p1[d], s) * s, dataset_box.p1[d]);
    aligned.p2[d] = std::min(FloorDiv(box.p2[d] + s - 1, s) * s, dataset_box.p2[d]);
  }
  return aligned;
}

std::vector<LoadStep> PlanLoadSteps(const BlockLayout& layout, const Box& dataset_box, const ViewPlan& plan,
                                    const LoadPolicy& policy) {
  std::vector<LoadStep> steps;
  if (!plan.visible) return steps;
  const Bitmask& bitmask = layout.bitmask();
  int final_level = std::clamp(policy.level_override.value_or(plan.level), 0, layout.maxh());
  if (!policy.level_override) {
    while (final_level > 0 &&
           SamplesAt(layout, AlignToLevel(bitmask, plan.box, final_level, dataset_box), final_level) >
               policy.max_samples) {
      --final_level;
    }
  }
  // Coarse previews: each a factor 2^dims fewer samples than the next, above what the overview shows.
  const int step = std::max(1, layout.dims());
  std::vector<int> levels{final_level};
  for (int k = 1; k <= policy.max_coarse_steps; ++k) {
    const int h = final_level - k * step;
    if (h <= policy.floor_level) break;
    levels.insert(levels.begin(), h);
  }
  for (int h : levels) steps.push_back({AlignToLevel(bitmask, plan.box, h, dataset_box), h});
  return steps;
}

bool Covers(const LoadStep& loaded, const LoadStep& wanted) {
  if (loaded.level != wanted.level || loaded.box.dims() != wanted.box.dims()) return false;
  for (int d = 0; d < wanted.box.dims(); ++d) {
    if (wanted.box.p1[d] < loaded.box.p1[d] || wanted.box.p2[d] > loaded.box.p2[d]) return false;
  }
  return true;
}

}  // namespace hzio::viewer
