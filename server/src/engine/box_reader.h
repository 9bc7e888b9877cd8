/// The server's reads, through the shared decoded-block cache (hzio/access/block_cache.h): every
/// served dataset's block source is wrapped in a CachedBlockSource per request, so hot blocks
/// (block 0 above all) are read and decoded once for every request, misses of one request are
/// fetched in one batch (merged reads), and box queries are assembled by hzio's one assembler
/// (idx-format.md §3.4, §4.7; box_assembler.h). Runs on the server's worker pool.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "config/dataset_registry.h"
#include "hzio/access/block_cache.h"
#include "hzio/access/dataset.h"

namespace hzio::server {

/// Blocks `ids` of a served dataset through the cache (null = absent, §4.6), fetched together.
std::vector<std::shared_ptr<const DecodedBlock>> CachedBlocks(const ServedDataset& ds, BlockCache& cache, int field,
                                                              int64_t time, const std::vector<uint64_t>& ids);

/// One block of a served dataset through the cache (nullptr = absent, §4.6).
std::shared_ptr<const DecodedBlock> CachedBlock(const ServedDataset& ds, BlockCache& cache, int field,
                                                int64_t time, uint64_t block);

/// Fills `out` (exactly the result's byte size) with the samples of `query`.
void ReadBoxCached(const ServedDataset& ds, BlockCache& cache, const Dataset::Resolved& query, uint8_t* out);

/// The samples of a decoded block in row-major order over its block grid (copies hz blocks).
std::vector<uint8_t> BlockInRowMajor(const BlockLayout& layout, const DecodedBlock& block, const DType& dtype);

/// Writes `count` copies of the field's default sample (its default_value, §1.3).
void FillDefault(const Field& field, uint8_t* out, int64_t count);

}  // namespace hzio::server
