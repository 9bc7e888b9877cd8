#include "handlers/query_cost.h"

#include "hzio/util/error.h"

namespace hzio::server {

void CheckReadCost(const ServerContext& context, const ServedDataset& dataset, const Dataset::Resolved& query) {
  const IdxHeader& header = dataset.dataset->header();
  const BlockLayout& layout = dataset.dataset->layout();
  const Box region = query.grid.LogicBox().Intersect(header.bitmask.PaddedBox());
  if (region.Empty()) return;
  const int64_t blocks = static_cast<int64_t>(layout.BlocksInRegion(region, query.levels).size());
  const int64_t block_bytes =
      header.fields[static_cast<size_t>(query.field)].dtype.BytesFor(layout.samples_per_block());
  const int64_t limit = MaxReadBytes(context.options);
  Check(blocks <= limit / std::max<int64_t>(1, block_bytes), ErrorCode::kTooLarge,
        "query reads " + std::to_string(blocks) + " blocks of " + std::to_string(block_bytes) +
            " bytes, over the server's limit of " + std::to_string(limit) +
            " bytes read per request; ask for a smaller box or a coarser level");
}

}  // namespace hzio::server
