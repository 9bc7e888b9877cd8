#include "hzio/hz/unit_scatter.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "hzio/hz/sample_kernels.h"
#include "hzio/util/stream_copy.h"

namespace hzio {

void ScatterSamples(uint8_t* dst, const uint8_t* src, const uint32_t* offsets, int64_t n, int64_t sb) {
  Scatter(dst, src, offsets, n, sb, ScatterKernel(sb, Reach::kFar));
}

namespace {

// Every group of `group` samples of `offsets` is laid out like the first (destinations at the same
// distances from its first sample's, compared in 64 bits: a difference that wraps around in 32 would
// send a sample past the array), and the first sample of each is its lowest destination.
bool LaidOutAlike(const std::vector<uint32_t>& offsets, size_t group) {
  if (offsets.size() % group != 0) return false;
  for (size_t l = 0; l < group; ++l)
    if (offsets[l] < offsets[0]) return false;
  for (size_t f = group; f < offsets.size(); f += group)
    for (size_t l = 0; l < group; ++l)
      if (int64_t{offsets[f + l]} - int64_t{offsets[f]} != int64_t{offsets[l]} - int64_t{offsets[0]}) return false;
  return true;
}

}  // namespace

int BlockScatter::GroupFor(int64_t sample_bytes) {
  const int64_t want = kGroupBytes / std::clamp<int64_t>(sample_bytes, 1, kMaxGroupedSampleBytes);
  int group = 2;
  while (group * 2 <= want) group *= 2;
  return group;
}

BlockScatter::BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes)
    : BlockScatter(std::move(offsets), sample_bytes, true) {}

BlockScatter::BlockScatter(std::vector<uint32_t> offsets, int64_t sample_bytes, bool find_rows)
    : offsets_(std::move(offsets)) {
  static_assert(kGroupBytes <= 65536, "a sample's index within its group is kept in 16 bits");
  for (size_t group = static_cast<size_t>(GroupFor(sample_bytes)); group >= 2; group /= 2) {
    if (group > offsets_.size() || !LaidOutAlike(offsets_, group)) continue;
    std::vector<std::pair<uint32_t, uint16_t>> order;  // (destination from the first's, index in the group)
    for (size_t l = 0; l < group; ++l) order.emplace_back(offsets_[l] - offsets_[0], static_cast<uint16_t>(l));
    std::sort(order.begin(), order.end());
    for (const auto& [to, from] : order) {
      to_.push_back(to);
      from_.push_back(from);
    }
    group_ = static_cast<int>(group);
    break;
  }
  if (find_rows) FindRows();
}

BlockScatter BlockScatter::ForBlocks(const BlockLayout& layout, int level, const Point& dst_step,
                                     const Point& dst_count, int64_t sample_bytes) {
  BlockScatter scatter(BlockScatterOffsets(layout, level, dst_step, dst_count), sample_bytes, false);
  const int64_t n = static_cast<int64_t>(scatter.offsets_.size());
  const int64_t row = layout.BlockGrid(layout.FirstBlockOfLevel(level)).count[0];
  if (n == 0 || dst_step[0] != 1 || row < 2 || n > kMaxStagedBytes) return scatter;
  // The grid's rows along axis 0, in row-major order, are the rows: sample h is at row-major index
  // HzToRowMajor[h] of the grid, and a row's destination is its first sample's.
  scatter.row_ = row;
  scatter.in_rows_ = layout.HzToRowMajor(level);
  const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(level);
  for (int64_t r = 0; r < n; r += row) scatter.row_at_.push_back(scatter.offsets_[to_hz[static_cast<size_t>(r)]]);
  return scatter;
}

void BlockScatter::FindRows() {
  const size_t n = offsets_.size();
  if (n < 2 || static_cast<int64_t>(n) > kMaxStagedBytes) return;  // never staged, even of 1-byte samples
  std::vector<std::pair<uint32_t, uint32_t>> order;  // (destination, hz index)
  order.reserve(n);
  for (size_t h = 0; h < n; ++h) order.emplace_back(offsets_[h], static_cast<uint32_t>(h));
  std::sort(order.begin(), order.end());
  size_t row = 1;  // the first row's length: its destinations consecutive
  while (row < n && order[row].first == order[row - 1].first + 1) ++row;
  if (row < 2 || n % row != 0) return;
  for (size_t r = 0; r < n; r += row)
    if (order[r + row - 1].first - order[r].first != row - 1) return;  // distinct and sorted: consecutive
  row_ = static_cast<int64_t>(row);
  in_rows_.resize(n);
  for (size_t k = 0; k < n; ++k) in_rows_[order[k].second] = static_cast<uint32_t>(k);
  for (size_t r = 0; r < n; r += row) row_at_.push_back(order[r].first);
}

bool BlockScatter::Staged(int64_t sb) const {
  return row_ > 0 && row_ * sb >= kMinRowBytes && static_cast<int64_t>(offsets_.size()) * sb <= kMaxStagedBytes;
}

void BlockScatter::Apply(uint8_t* dst, const uint8_t* src, int64_t sb, bool stream) const {
  const int64_t n = static_cast<int64_t>(offsets_.size());
  if (Staged(sb)) {
    thread_local std::vector<uint8_t> rows;  // stays in the caches from block to block
    rows.resize(static_cast<size_t>(n * sb));
    Scatter(rows.data(), src, in_rows_.data(), n, sb, ScatterKernel(sb, Reach::kNear));
    const size_t row_bytes = static_cast<size_t>(row_ * sb);
    const uint8_t* from = rows.data();
    for (const uint32_t at : row_at_) {
      uint8_t* const to = dst + static_cast<size_t>(at) * static_cast<size_t>(sb);
      if (stream)
        StreamCopy(to, from, row_bytes);
      else
        std::memcpy(to, from, row_bytes);
      from += row_bytes;
    }
    return;
  }
  const GroupScatterKernel kernel = group_ > 0 && sb <= kMaxGroupedSampleBytes ? GroupKernel(sb) : nullptr;
  if (!kernel) return ScatterSamples(dst, src, offsets_.data(), n, sb);
  kernel(dst, src, offsets_.data(), n, group_, to_.data(), from_.data());
}

int64_t BlockScatter::table_bytes() const {
  return static_cast<int64_t>((offsets_.size() + to_.size() + in_rows_.size() + row_at_.size()) * sizeof(uint32_t) +
                              from_.size() * sizeof(uint16_t));
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
