#include "hzio/mpi/hz_unit_placer.h"

#include "hzio/mpi/block_reading.h"

namespace hzio::mpi {

HzUnitPlacer::Scatter HzUnitPlacer::PlanScatter(uint64_t unit, int64_t sb, const Grid& result, uint8_t* data,
                                               const Box& clipped) {
  const Grid g = units_.BlockGrid(unit);
  AxisCopy copy[kMaxDims];
  if (!PlanGridCopy(g, result, clipped, copy)) return Scatter{};
  const Scatter part{Fit::kPart, nullptr, nullptr};
  if (UnitSamplesNeeded(units_, unit, max_level_) < units_.samples_per_block()) return part;  // unit 0, sparse
  const int dims = g.dims();
  int64_t first = 0, pitch = 1;
  for (int d = 0; d < dims; ++d) {
    if (copy[d].count != g.count[d]) return part;
    first += copy[d].dst_first * pitch;
    pitch *= result.count[d];
  }
  // The units of a level share their grid's shape; boxes of one shape share their tables.
  const int level = units_.BlockLevel(unit);
  std::vector<int64_t> shape{level};
  for (int d = 0; d < dims; ++d) shape.push_back(copy[d].dst_step);
  for (int d = 0; d < dims; ++d) shape.push_back(result.count[d]);
  shape.push_back(BlockScatter::GroupFor(sb));  // sample sizes of one group size share a table
  const std::lock_guard<std::mutex> lock(scatters_mutex_);
  auto at = scatters_.find(shape);
  if (at == scatters_.end()) {
    if (offset_bytes_ >= kMaxOffsetTableBytes) return part;
    Point step(dims);
    for (int d = 0; d < dims; ++d) step[d] = copy[d].dst_step;
    at = scatters_.emplace(std::move(shape), BlockScatter::ForBlocks(units_, level, step, result.count, sb)).first;
    offset_bytes_ += at->second.table_bytes();
  }
  if (at->second.empty()) return part;  // beyond 32-bit offsets
  return Scatter{Fit::kWhole, data + first * sb, &at->second};
}

void HzUnitPlacer::Apply(const Scatter& s, const uint8_t* hz, int64_t sb, bool stream) const {
  s.scatter->Apply(s.first, hz, sb, stream);
}

void HzUnitPlacer::Place(uint64_t unit, const uint8_t* hz, int64_t sb, const Grid& result, uint8_t* data,
                         const Box& clipped, bool stream) {
  const Scatter s = PlanScatter(unit, sb, result, data, clipped);
  if (s.fit == Fit::kWhole) return Apply(s, hz, sb, stream);
  if (s.fit == Fit::kNone) return;
  const Grid g = units_.BlockGrid(unit);
  const int64_t n = units_.samples_per_block();
  unit_buffer_.resize(static_cast<size_t>(n * sb));
  HzUnitToRowMajor(units_, unit, max_level_, hz, sb, Span{0, n}, unit_buffer_.data());
  AxisCopy copy[kMaxDims];
  PlanGridCopy(g, result, clipped, copy);
  CopyPlanned(unit_buffer_.data(), g.count, data, result.count, copy, g.dims(), sb, stream);
}

}  // namespace hzio::mpi
