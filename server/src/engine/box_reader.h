/// Box queries answered from the shared block cache: the result grid of idx-format.md §3.4 is
/// assembled from the decoded blocks that hold its samples (§4.2), hz-ordered blocks permuted to
/// their row-major block grid first (§4.7), samples never written left at `default_value`.
#pragma once

#include <cstdint>
#include <memory>

#include "config/dataset_registry.h"
#include "engine/block_cache.h"
#include "hzio/access/dataset.h"

namespace hzio::server {

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
