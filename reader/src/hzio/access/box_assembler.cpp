#include "hzio/access/box_assembler.h"

#include <cstring>
#include <vector>

#include "hzio/access/sample_copy.h"
#include "hzio/codec/codec.h"
#include "hzio/util/byte_buffer.h"
#include "hzio/util/error.h"
#include "hzio/util/stream_copy.h"
#include "hzio/util/task_group.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// Blocks waiting for a decoder, per pool thread (parallel decode, below).
constexpr size_t kPendingPerThread = 2;

// Whether the plan moves every sample of a block, in the block's row-major order, onto one
// contiguous range of the destination; `first` is then the range's first sample.
bool ContiguousPlacement(const AxisCopy (&plan)[kMaxDims], int dims, const Point& src_count, const Point& dst_count,
                         int64_t* first) {
  int64_t src_pitch = 1, dst_pitch = 1, start = 0;
  for (int d = 0; d < dims; ++d) {
    const AxisCopy& a = plan[d];
    if (a.count != src_count[d] || a.src_first != 0) return false;
    if (a.count > 1 && (a.src_step != 1 || a.dst_step * dst_pitch != src_pitch)) return false;
    start += a.dst_first * dst_pitch;
    src_pitch *= src_count[d];
    dst_pitch *= dst_count[d];
  }
  *first = start;
  return true;
}

}  // namespace

void DecodeBlock(const BlockSource& source, int field, uint64_t block, const EncodedBlock& encoded, uint8_t* out) {
  const size_t out_size = source.DecodedBlockBytes(field);
  if (encoded.codec == Codec::kRaw && encoded.data == out) {  // read into place by the source
    Check(encoded.size == out_size, ErrorCode::kCorrupt,
          encoded.where + ": raw block has " + std::to_string(encoded.size) + " bytes, expected " +
              std::to_string(out_size));
    return;
  }
  // The one decode call of every read path: zfp blocks take their mode from the field's
  // default_compression (§5), png/jpg/zfp the block grid's shape (§4.1).
  const Field& f = source.header().fields[static_cast<size_t>(field)];
  Decode(CodecSpec::ForBlock(encoded.codec, f.compression), encoded.data, encoded.size,
         SampleShape{f.dtype, source.layout().BlockGrid(block).count}, out, out_size, encoded.where);
}

void AssembleBox(BlockSource& source, const BoxRequest& q, uint8_t* out) {
  const BlockLayout& layout = source.layout();
  const Field& field = source.header().fields[static_cast<size_t>(q.field)];
  Check(field.dtype.ByteAligned(), ErrorCode::kUnsupported,
        source.name() + ": field '" + field.name + "' has dtype " + field.dtype.ToString() +
            "; only whole-byte sample types can be read");
  const int64_t sb = field.dtype.SampleBytes();
  const size_t block_bytes = source.DecodedBlockBytes(q.field);
  const std::vector<uint8_t> fill = field.DefaultSample();
  const Box region = q.grid.LogicBox();
  const int dims = layout.dims();
  const SampleSide dst{out, q.grid.count, nullptr};
  // A result larger than the caches is written with streaming stores where rows allow it.
  const bool stream = field.dtype.BytesFor(q.grid.NumSamples()) >= kStreamResultBytes;

  const std::vector<uint64_t> blocks = layout.BlocksInRegion(region, q.levels);
  std::vector<BlockKey> keys(blocks.size());
  std::vector<uint8_t*> targets(blocks.size(), nullptr);
  for (size_t i = 0; i < blocks.size(); ++i) {
    keys[i] = BlockKey{q.field, q.time, blocks[i]};
    AxisCopy plan[kMaxDims];
    const Grid g = layout.BlockGrid(blocks[i]);
    int64_t first = 0;
    if (PlanGridCopy(g, q.grid, region, plan) && ContiguousPlacement(plan, dims, g.count, q.grid.count, &first))
      targets[i] = out + first * sb;
  }

  // Decodes and places one delivered block (on whichever thread runs it).
  auto place = [&](size_t i, const EncodedBlock& b) {
    const uint64_t id = blocks[i];
    const Grid g = layout.BlockGrid(id);
    AxisCopy plan[kMaxDims];
    if (!PlanGridCopy(g, q.grid, region, plan)) return;
    if (!b.present) {
      FillSamples(plan, dims, dst, fill.data(), sb);
      return;
    }
    thread_local ByteBuffer scratch;
    if (targets[i] && b.row_major) {  // the block is its range of the result: decode it there
      DecodeBlock(source, q.field, id, b, targets[i]);
      return;
    }
    const uint8_t* samples = b.data;
    if (b.codec == Codec::kRaw && b.data != targets[i]) {
      Check(b.size == block_bytes, ErrorCode::kCorrupt,
            b.where + ": raw block has " + std::to_string(b.size) + " bytes, expected " + std::to_string(block_bytes));
    } else {  // compressed, or a raw hz block read into the result's memory: permuted from a copy
      scratch.Resize(block_bytes);
      if (b.data == targets[i]) std::memcpy(scratch.data(), b.data, block_bytes);
      else DecodeBlock(source, q.field, id, b, scratch.data());
      samples = scratch.data();
    }
    const uint32_t* map = b.row_major ? nullptr : layout.RowMajorToHz(layout.BlockLevel(id)).data();
    CopySamples(plan, dims, SampleSide{const_cast<uint8_t*>(samples), g.count, map}, dst, sb, stream);
  };

  // Parallel decode: a source that delivers on one thread (a network loop, a serial reader) would
  // leave the other cores idle while that thread inflates and permutes, so blocks that need work
  // go to the shared pool as they arrive. At most kPendingPerThread per pool thread wait (each
  // holds its payload); beyond that the delivering thread decodes itself, which bounds memory and
  // slows the source down to the decoders' pace. Sinks already running on pool threads (sources
  // that spread their reads) decode in place: moving the block to another core gains nothing.
  ThreadPool& pool = ThreadPool::Shared();
  const bool offload = q.threads != 1 && pool.size() > 1;
  TaskGroup decoders(offload ? &pool : nullptr, kPendingPerThread * static_cast<size_t>(pool.size()));
  source.FetchInto(keys, targets, [&](size_t i, EncodedBlock&& b) {
    const bool cheap = !b.present || (b.codec == Codec::kRaw && b.row_major);
    // A payload may be handed on only if it outlives this call: kept by its owner, or already
    // in the result.
    const bool kept = b.owner != nullptr || (b.data != nullptr && b.data == targets[i]);
    if (!offload || cheap || !kept || ThreadPool::InTask()) {
      place(i, b);
      return;
    }
    if (decoders.failed()) decoders.Wait();  // rethrows the decode error, ending the fetch
    decoders.Submit([&place, i, b = std::move(b)] { place(i, b); });
  });
  decoders.Wait();
}

}  // namespace hzio
