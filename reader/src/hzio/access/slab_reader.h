/// Reads a box query of any size with bounded memory (design.md §3 `hzio read`, §7 "memory
/// bounded independent of result size"): the result is cut into slabs along its slowest axis,
/// each slab is a box query of its own, and every slab is handed to a consumer (a file writer)
/// in order. The consumer runs on its own thread while the next slab is read, so the output's
/// I/O overlaps the reading; memory is two slabs whatever the result size.
///
/// Slabs are a power of two of rows high and start at multiples of that height. Block extents
/// are powers of two too (idx-format.md §4.1), so a block no taller than a slab lies in one slab
/// and is read whole, once; slabs grow (up to a size the caller bounds) to the height of the
/// query level's blocks, which hold half the data, so that none of those is read twice. Blocks of
/// coarser levels are taller and are read once per slab they span (their bytes halve per level).
#pragma once

#include <cstdint>
#include <functional>

#include "hzio/access/dataset.h"

namespace hzio {

/// Receives the bytes of consecutive slabs (row-major, together exactly the result's bytes).
using SlabConsumer = std::function<void(const uint8_t* data, int64_t bytes)>;

/// Reads `query` of `dataset` slab by slab of about `slab_bytes` (one piece when the result is
/// no larger, or when its rows are not whole bytes), grown up to `max_slab_bytes` to hold the
/// query level's blocks whole, and passes each slab to `consume`, on another thread than the
/// reads. Throws what the reads or `consume` throw, after the consumer has stopped using the
/// buffers.
void ReadInSlabs(Dataset& dataset, const Dataset::Resolved& query, int64_t slab_bytes, int64_t max_slab_bytes,
                 const SlabConsumer& consume);

}  // namespace hzio
