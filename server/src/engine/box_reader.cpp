#include "engine/box_reader.h"

#include <algorithm>
#include <cstring>

#include "hzio/access/sample_copy.h"
#include "hzio/hz/grid.h"
#include "hzio/util/error.h"

namespace hzio::server {

namespace {

// Moves the sample of each planned position; hz-ordered blocks are read through the block
// level's row-major -> hz table instead of being permuted first (§4.7).
void ScatterBlock(const BlockLayout& layout, const DecodedBlock& block, const Grid& dst_grid, const Box& region,
                  uint8_t* out, int64_t sample_bytes) {
  AxisCopy plan[kMaxDims];
  if (!PlanGridCopy(block.grid, dst_grid, region, plan)) return;
  const uint32_t* map = block.row_major ? nullptr : layout.RowMajorToHz(layout.BlockLevel(block.id)).data();
  CopySamples(plan, layout.dims(), SampleSide{const_cast<uint8_t*>(block.bytes.data()), block.grid.count, map},
              SampleSide{out, dst_grid.count, nullptr}, sample_bytes);
}

}  // namespace

void FillDefault(const Field& field, uint8_t* out, int64_t count) {
  const std::vector<uint8_t> sample = field.DefaultSample();
  const size_t sb = sample.size();
  if (std::all_of(sample.begin(), sample.end(), [](uint8_t b) { return b == 0; })) {
    std::memset(out, 0, sb * static_cast<size_t>(count));
    return;
  }
  for (int64_t i = 0; i < count; ++i) std::memcpy(out + static_cast<size_t>(i) * sb, sample.data(), sb);
}

std::shared_ptr<const DecodedBlock> CachedBlock(const ServedDataset& ds, BlockCache& cache, int field,
                                                int64_t time, uint64_t block) {
  BlockKey key{ds.index, field, time, block};
  return cache.Get(key, [&] { return ds.dataset->ReadBlock(field, time, block); });
}

std::vector<uint8_t> BlockInRowMajor(const BlockLayout& layout, const DecodedBlock& block, const DType& dtype) {
  if (block.row_major) return block.bytes;
  const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(layout.BlockLevel(block.id));
  const size_t sb = static_cast<size_t>(dtype.SampleBytes());
  Check(block.bytes.size() >= to_hz.size() * sb, ErrorCode::kCorrupt,
        "block " + std::to_string(block.id) + " is shorter than its grid");
  std::vector<uint8_t> out(to_hz.size() * sb);
  for (size_t r = 0; r < to_hz.size(); ++r) std::memcpy(&out[r * sb], &block.bytes[to_hz[r] * sb], sb);
  return out;
}

void ReadBoxCached(const ServedDataset& ds, BlockCache& cache, const Dataset::Resolved& query, uint8_t* out) {
  const IdxHeader& header = ds.dataset->header();
  const Field& field = header.fields[static_cast<size_t>(query.field)];
  const DType& dtype = field.dtype;
  Check(dtype.ByteAligned(), ErrorCode::kUnsupported,
        ds.name + ": field '" + field.name + "' has sub-byte samples (" + dtype.ToString() + ")");
  const BlockLayout& layout = ds.dataset->layout();
  const int64_t sb = dtype.SampleBytes();
  FillDefault(field, out, query.grid.NumSamples());
  const Box region = query.grid.LogicBox().Intersect(header.bitmask.PaddedBox());
  for (uint64_t id : layout.BlocksInRegion(region, query.levels)) {
    std::shared_ptr<const DecodedBlock> block = CachedBlock(ds, cache, query.field, query.time, id);
    if (!block) continue;
    Check(static_cast<int64_t>(block->bytes.size()) >= block->grid.NumSamples() * sb, ErrorCode::kCorrupt,
          ds.name + ": block " + std::to_string(id) + " decoded to too few bytes");
    ScatterBlock(layout, *block, query.grid, region, out, sb);
  }
}

}  // namespace hzio::server
