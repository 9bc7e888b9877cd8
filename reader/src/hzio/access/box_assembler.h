/// The one assembler: blocks of any BlockSource turned into a box query's result (idx-format.md
/// §3.4 result grid, §4.2 blocks touched, §4.7 sample layouts). Each block the query touches is
/// fetched once, decoded (the codec of its payload), and its samples on the result grid placed
/// straight into the result: row-major blocks by per-axis plans, hz-ordered ones through the
/// level's row-major -> hz table (sample_copy.h); absent blocks (§4.6) put the field's default
/// value in their places. Every result sample lies in exactly one touched block, so the result
/// needs no fill beforehand. Decoding and placing run on the source's threads when it spreads its
/// reads over the pool, else on the pool as blocks arrive (parallel decode, bounded backlog), with
/// per-thread scratch; a raw block that lands as one contiguous range of the result is read
/// straight there.
#pragma once

#include <cstdint>

#include "hzio/access/block_source.h"
#include "hzio/hz/block_layout.h"
#include "hzio/hz/grid.h"

namespace hzio {

/// What to assemble: one field at one timestep, levels `levels`, on the result grid `grid`
/// (BlockLayout::QueryGrid).
struct BoxRequest {
  int field = 0;
  int64_t time = 0;
  LevelRange levels;
  Grid grid;
  int threads = 0;  // 1: decode on the threads the source delivers on only (no pool)
};

/// Fills `out` (row-major over request.grid.count, exactly its byte size). Throws what the source
/// throws, and kCorrupt naming the block when a payload does not decode to exactly 2^bpb samples.
void AssembleBox(BlockSource& source, const BoxRequest& request, uint8_t* out);

/// Decodes a present block of `field` into `out` (source.DecodedBlockBytes(field) bytes; a raw
/// payload read there already is only checked). Throws kCorrupt naming `encoded.where` when the
/// payload does not decode to exactly that size, kUnsupported for a codec hzio cannot decode.
void DecodeBlock(const BlockSource& source, int field, uint64_t block, const EncodedBlock& encoded, uint8_t* out);

}  // namespace hzio
