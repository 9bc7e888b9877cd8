#include "engine/box_reader.h"

#include <algorithm>
#include <cstring>

#include "hzio/access/box_assembler.h"
#include "hzio/access/cached_block_source.h"
#include "hzio/util/error.h"

namespace hzio::server {

namespace {

// The dataset's blocks through the server's cache. The cache outlives every request (it lives
// in the ServerContext), so the source refers to it without owning it.
CachedBlockSource Cached(const ServedDataset& ds, BlockCache& cache) {
  return CachedBlockSource(ds.dataset->block_source(), std::shared_ptr<BlockCache>(std::shared_ptr<void>(), &cache));
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

std::vector<std::shared_ptr<const DecodedBlock>> CachedBlocks(const ServedDataset& ds, BlockCache& cache, int field,
                                                              int64_t time, const std::vector<uint64_t>& ids) {
  std::vector<BlockKey> keys;
  keys.reserve(ids.size());
  for (uint64_t id : ids) keys.push_back(BlockKey{field, time, id});
  return Cached(ds, cache).Blocks(keys);
}

std::shared_ptr<const DecodedBlock> CachedBlock(const ServedDataset& ds, BlockCache& cache, int field,
                                                int64_t time, uint64_t block) {
  return CachedBlocks(ds, cache, field, time, {block})[0];
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
  CachedBlockSource source = Cached(ds, cache);
  AssembleBox(source, BoxRequest{query.field, query.time, query.levels, query.grid}, out);
}

}  // namespace hzio::server
