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
// once; a group's first sample goes where `offsets` says. No prefetching: asking for the next
// groups' lines ahead was slower here (the runs' 16-byte stores already keep few lines in flight).
template <size_t kBytes>
void ScatterRuns(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int group,
                 const uint8_t* sources, const uint32_t* run_offsets) {
  constexpr int kRun = static_cast<int>(kRunBytes / kBytes);
  const int runs = group / kRun;
  for (int64_t first = 0; first < n; first += group) {
    uint8_t* const base = dst + static_cast<size_t>(offsets[first]) * kBytes;
    const uint8_t* const in = src + static_cast<size_t>(first) * kBytes;
    const uint8_t* s = sources;
    for (int k = 0; k < runs; ++k, s += kRun) {
      uint8_t bytes[kRunBytes];
      for (int r = 0; r < kRun; ++r) std::memcpy(bytes + r * kBytes, in + static_cast<size_t>(s[r]) * kBytes, kBytes);
      std::memcpy(base + static_cast<size_t>(run_offsets[k]) * kBytes, bytes, kRunBytes);
    }
  }
}

}  // namespace

BlockScatter::BlockScatter(std::vector<uint32_t> offsets) : offsets_(std::move(offsets)) {
  for (const int64_t sb : {4, 8}) {
    Runs& runs = sb == 4 ? runs4_ : runs8_;
    const int run = static_cast<int>(kRunBytes / sb);
    for (int group = run; group <= kMaxRunGroup && static_cast<size_t>(group) <= offsets_.size(); group *= 2)
      if (FindRuns(offsets_, group, run, runs.sources, runs.offsets)) {
        runs.group = group;
        break;
      }
  }
}

const BlockScatter::Runs* BlockScatter::RunsFor(int64_t sb) const {
  const Runs* runs = sb == 4 ? &runs4_ : sb == 8 ? &runs8_ : nullptr;
  return runs && runs->group > 0 ? runs : nullptr;
}

int BlockScatter::run_group(int64_t sb) const {
  const Runs* runs = RunsFor(sb);
  return runs ? runs->group : 0;
}

void BlockScatter::Apply(uint8_t* dst, const uint8_t* src, int64_t sb) const {
  const int64_t n = static_cast<int64_t>(offsets_.size());
  const Runs* runs = RunsFor(sb);
  if (!runs) return ScatterSamples(dst, src, offsets_.data(), n, sb);
  if (sb == 4) ScatterRuns<4>(dst, src, offsets_.data(), n, runs->group, runs->sources.data(), runs->offsets.data());
  else ScatterRuns<8>(dst, src, offsets_.data(), n, runs->group, runs->sources.data(), runs->offsets.data());
}

int64_t BlockScatter::table_bytes() const {
  int64_t bytes = static_cast<int64_t>(offsets_.size() * sizeof(uint32_t));
  for (const Runs* runs : {&runs4_, &runs8_})
    bytes += static_cast<int64_t>(runs->sources.size() + runs->offsets.size() * sizeof(uint32_t));
  return bytes;
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
