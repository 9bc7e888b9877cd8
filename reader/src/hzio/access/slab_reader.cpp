#include "hzio/access/slab_reader.h"

#include <algorithm>
#include <future>

#include "hzio/util/large_allocation.h"

namespace hzio {

void ReadInSlabs(Dataset& dataset, const Dataset::Resolved& query, int64_t slab_bytes, int64_t max_slab_bytes,
                 const SlabConsumer& consume) {
  const DType dtype = dataset.header().fields[static_cast<size_t>(query.field)].dtype;
  const Grid& grid = query.grid;
  const int slow = grid.dims() - 1;
  const int64_t total_bytes = dtype.BytesFor(grid.NumSamples());
  const int64_t row_samples = grid.NumSamples() / std::max<int64_t>(1, grid.count[slow]);
  const int64_t row_bytes = dtype.BytesFor(row_samples);
  // Slabs only when the result is large and rows stay byte aligned (sub-byte dtypes: one piece).
  if (total_bytes <= slab_bytes || (row_samples * dtype.components() * dtype.bits()) % 8 != 0) {
    LargeAllocation buffer(static_cast<size_t>(total_bytes));
    dataset.ReadInto(query, buffer.data());
    consume(buffer.data(), total_bytes);
    return;
  }

  const BlockLayout& layout = dataset.layout();
  const int h = query.levels.to;
  const int64_t stride = grid.stride[slow];
  int64_t span = stride;  // logic rows of a slab
  while (span * 2 / stride * row_bytes <= slab_bytes && span < (int64_t{1} << 40)) span *= 2;
  if (h > layout.bits_per_block()) {
    // A level-h block taller than a slab would be read again by every slab it spans: 64 planes
    // high at the full resolution of 2048^3 float32, read 16 times over by 4-plane slabs (a
    // 32 GiB read moved 18x its size out of the page cache). Slabs grow to that height.
    const Grid block = layout.BlockGrid(layout.FirstBlockOfLevel(h));
    const int64_t height = block.count[slow] * block.stride[slow];
    if (height > span && height / stride * row_bytes <= std::max(max_slab_bytes, slab_bytes)) span = height;
  }
  const int64_t max_rows = std::min(span / stride + 1, grid.count[slow]);
  // Two slabs: the one being read and the one being consumed. Huge pages: a slab is written
  // once per pass over it, and 4 KiB pages cost a TLB miss every few rows.
  LargeAllocation buffers[2] = {LargeAllocation(static_cast<size_t>(max_rows * row_bytes)),
                                LargeAllocation(static_cast<size_t>(max_rows * row_bytes))};
  std::future<void> consuming;  // the previous slab's consumer
  auto wait_consumer = [&] {
    if (consuming.valid()) consuming.get();
  };
  try {
    int k = 0;
    for (int64_t first = 0; first < grid.count[slow]; k ^= 1) {
      const int64_t at = grid.origin[slow] + first * stride;
      const int64_t edge = (at / span + 1) * span;
      const int64_t rows = std::min((edge - at + stride - 1) / stride, grid.count[slow] - first);
      Dataset::Resolved slab = query;
      slab.grid.origin[slow] = at;
      slab.grid.count[slow] = rows;
      slab.box = query.box.Intersect(slab.grid.LogicBox());
      // buffers[k] was last used by the consumer before the previous one, which has finished.
      dataset.ReadInto(slab, buffers[k].data());
      wait_consumer();
      const uint8_t* data = buffers[k].data();
      const int64_t bytes = rows * row_bytes;
      consuming = std::async(std::launch::async, [&consume, data, bytes] { consume(data, bytes); });
      first += rows;
    }
    wait_consumer();
  } catch (...) {
    if (consuming.valid()) consuming.wait();  // it may still use a buffer: let it finish first
    throw;
  }
}

}  // namespace hzio
