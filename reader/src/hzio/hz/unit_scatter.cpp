#include "hzio/hz/unit_scatter.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "hzio/hz/sample_kernels.h"

namespace hzio {

void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sb) {
  Scatter(dst, src, offsets, n, sb, ScatterKernel(sb, Reach::kFar));
}

namespace {

constexpr int64_t kRunBytes = 16;

// Every group of `group` hz samples of `offsets` (from its first sample: offsets[g * group] +
// rel[l]) is laid out like the first, and the first's destinations split into runs of `run`
// consecutive samples: the sources of each run (indices within the group, in destination order)
// and the run's first destination relative to the group's. Empty when they do not.
bool FindRuns(const std::vector<uint32_t>& offsets, int group, int run, std::vector<uint8_t>& sources,
              std::vector<uint32_t>& run_offsets) {
  const size_t n = offsets.size();
  if (n % static_cast<size_t>(group) != 0) return false;
  std::vector<std::pair<uint32_t, int>> rel;  // (destination from the group's first, index in the group)
  for (int l = 0; l < group; ++l) {
    if (offsets[static_cast<size_t>(l)] < offsets[0]) return false;
    rel.emplace_back(offsets[static_cast<size_t>(l)] - offsets[0], l);
  }
  std::sort(rel.begin(), rel.end());
  for (int k = 0; k < group; k += run)
    for (int r = 1; r < run; ++r)
      if (rel[static_cast<size_t>(k + r)].first != rel[static_cast<size_t>(k)].first + static_cast<uint32_t>(r))
        return false;
  // Compared in 64 bits: a difference that wraps around in 32 would let a run land past the array.
  for (size_t g = 0; g < n; g += static_cast<size_t>(group))
    for (int l = 0; l < group; ++l)
      if (int64_t{offsets[g + static_cast<size_t>(l)]} - int64_t{offsets[g]} !=
          int64_t{offsets[static_cast<size_t>(l)]} - int64_t{offsets[0]})
        return false;
  sources.clear();
  run_offsets.clear();
  for (int k = 0; k < group; k += run) {
    run_offsets.push_back(rel[static_cast<size_t>(k)].first);
    for (int r = 0; r < run; ++r) sources.push_back(static_cast<uint8_t>(rel[static_cast<size_t>(k + r)].second));
  }
  return true;
}

// Each run gathered from its group into 16 bytes (the copies become register inserts) and stored at
// once. No prefetching: asking for the next groups' lines ahead was slower here (the runs' 16-byte
// stores already keep few lines in flight).
template <size_t kBytes>
void ScatterRuns(uint8_t* dst, const uint8_t* src, int group, const uint8_t* sources, const uint32_t* run_offsets,
                 const uint32_t* group_offsets, int64_t groups) {
  constexpr int kRun = static_cast<int>(kRunBytes / kBytes);
  const int runs = group / kRun;
  for (int64_t g = 0; g < groups; ++g) {
    uint8_t* const base = dst + static_cast<size_t>(group_offsets[g]) * kBytes;
    const uint8_t* const in = src + static_cast<size_t>(g * group) * kBytes;
    const uint8_t* s = sources;
    for (int k = 0; k < runs; ++k, s += kRun) {
      uint8_t bytes[kRunBytes];
      for (int r = 0; r < kRun; ++r) std::memcpy(bytes + r * kBytes, in + static_cast<size_t>(s[r]) * kBytes, kBytes);
      std::memcpy(base + static_cast<size_t>(run_offsets[k]) * kBytes, bytes, kRunBytes);
    }
  }
}

}  // namespace

BlockScatter::BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes)
    : offsets_(std::move(offsets)), sample_bytes_(sample_bytes) {
  if (sample_bytes != 4 && sample_bytes != 8) return;
  const int run = static_cast<int>(kRunBytes / sample_bytes);
  for (int group = run; group <= kMaxRunGroup && static_cast<size_t>(group) <= offsets_.size(); group *= 2) {
    if (!FindRuns(offsets_, group, run, run_sources_, run_offsets_)) continue;
    group_ = group;
    for (size_t g = 0; g < offsets_.size(); g += static_cast<size_t>(group)) group_offsets_.push_back(offsets_[g]);
    offsets_.clear();  // the runs say it all
    offsets_.shrink_to_fit();
    return;
  }
}

void BlockScatter::Apply(uint8_t* dst, const uint8_t* src) const {
  if (group_ == 0) return ScatterSamples(dst, src, offsets_.data(), static_cast<int64_t>(offsets_.size()), sample_bytes_);
  const int64_t groups = static_cast<int64_t>(group_offsets_.size());
  if (sample_bytes_ == 4)
    ScatterRuns<4>(dst, src, group_, run_sources_.data(), run_offsets_.data(), group_offsets_.data(), groups);
  else
    ScatterRuns<8>(dst, src, group_, run_sources_.data(), run_offsets_.data(), group_offsets_.data(), groups);
}

int64_t BlockScatter::table_bytes() const {
  return static_cast<int64_t>(offsets_.size() * sizeof(uint32_t) + run_sources_.size() +
                              (run_offsets_.size() + group_offsets_.size()) * sizeof(uint32_t));
}

std::vector<uint32_t> BlockScatterOffsets(const BlockLayout& layout, int level, const Point& dst_step,
                                          const Point& dst_count) {
  const Grid g = layout.BlockGrid(layout.FirstBlockOfLevel(level));
  const int n = g.dims();
  int64_t step[kMaxDims];  // array index distance of consecutive grid samples along each axis
  int64_t pitch = 1, last = 0;
  for (int d = 0; d < n; ++d) {
    step[d] = dst_step[d] * pitch;
    last += (g.count[d] - 1) * step[d];
    pitch *= dst_count[d];
  }
  if (last > int64_t{UINT32_MAX}) return {};
  const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(level);
  std::vector<uint32_t> offsets(to_hz.size());
  // Walk the grid row-major: each sample's offset from the previous one's by carrying axes.
  int64_t k[kMaxDims] = {0}, at = 0;
  for (size_t r = 0; r < to_hz.size(); ++r) {
    offsets[to_hz[r]] = static_cast<uint32_t>(at);
    for (int d = 0; d < n; ++d) {
      if (++k[d] < g.count[d]) {
        at += step[d];
        break;
      }
      at -= (g.count[d] - 1) * step[d];
      k[d] = 0;
    }
  }
  return offsets;
}

}  // namespace hzio
