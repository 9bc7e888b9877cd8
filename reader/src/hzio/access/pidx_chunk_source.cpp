#include "hzio/access/pidx_chunk_source.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>

#include "hzio/access/box_assembler.h"
#include "hzio/util/byte_buffer.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

// Presented blocks per batch at most: their plans are kept until the batch is built.
constexpr size_t kMaxBatchBlocks = 256;

}  // namespace

// Where every sample of one presented block comes from. The block grid is separable: per axis,
// which of the touched chunks a sample lies in and its term of the in-chunk value index; per
// touched chunk (x fastest) and component, the stored block and the byte offset of its run.
struct PidxChunkSource::Plan {
  int field = 0;
  int64_t time = 0;
  uint64_t block = 0;
  int components = 1;
  int64_t component_bytes = 0;
  std::array<int64_t, kPidxChunkAxes> count{};    // samples per axis (1 beyond the dims)
  std::array<int64_t, kPidxChunkAxes> inside{};   // the first `inside` of them lie in the box
  std::array<int64_t, kPidxChunkAxes> touched{};  // chunks those samples lie in
  std::array<std::vector<int64_t>, kPidxChunkAxes> chunk_of, within;  // per sample of the axis
  std::vector<int32_t> run_block;   // per (touched chunk, component): index into `blocks`
  std::vector<int64_t> run_offset;  // and the byte offset of the run in that stored block
  std::vector<uint64_t> blocks;     // the stored blocks, ascending
};

PidxChunkSource::PidxChunkSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                                 std::shared_ptr<BlockSource> stored, Options options)
    : BlockSource(std::move(header), std::move(layout), stored->name()),
      stored_(std::move(stored)),
      options_(options),
      map_(this->header()) {}

PidxChunkSource::Plan PidxChunkSource::MakePlan(int field, uint64_t block) const {
  const BlockLayout& l = layout();
  const Grid g = l.BlockGrid(block);
  const Field& f = header().fields[static_cast<size_t>(field)];
  const PidxChunking& chunking = *header().pidx_chunking;
  Plan p;
  p.field = field;
  p.block = block;
  p.components = f.dtype.components();
  p.component_bytes = f.dtype.bits() / 8;
  const int dims = l.dims();
  const Point& chunk = map_.chunk();
  const int64_t term[kPidxChunkAxes] = {1, chunk[0], chunk[0] * chunk[1]};  // in-chunk index, x fastest
  std::array<std::vector<int64_t>, kPidxChunkAxes> chunks;  // touched chunk coordinates per axis
  for (int d = 0; d < kPidxChunkAxes; ++d) {
    if (d >= dims) {
      p.count[d] = p.inside[d] = p.touched[d] = 1;
      p.chunk_of[d] = {0};
      p.within[d] = {0};
      chunks[d] = {0};
      continue;
    }
    p.count[d] = g.count[d];
    for (int64_t k = 0; k < g.count[d]; ++k) {
      const int64_t s = g.origin[d] + k * g.stride[d];
      if (s >= header().box.p2[d]) break;  // the rest of the axis is padding (default value)
      const int64_t c = map_.ChunkIndex(d, s);
      if (chunks[d].empty() || chunks[d].back() != c) chunks[d].push_back(c);
      p.chunk_of[d].push_back(static_cast<int64_t>(chunks[d].size()) - 1);
      p.within[d].push_back((s - c * chunk[d]) * term[d]);
      ++p.inside[d];
    }
    p.touched[d] = static_cast<int64_t>(chunks[d].size());
  }
  const int64_t touched = p.touched[0] * p.touched[1] * p.touched[2];
  const int bpb = chunking.stored_bits_per_block;
  const int64_t record_bytes = map_.record_values() * p.components * p.component_bytes;
  std::vector<uint64_t> ids;
  ids.reserve(static_cast<size_t>(touched * p.components));
  p.run_offset.reserve(static_cast<size_t>(touched * p.components));
  Point c(kPidxChunkAxes);
  for (int64_t t = 0; t < touched; ++t) {
    c[0] = chunks[0][static_cast<size_t>(t % p.touched[0])];
    c[1] = chunks[1][static_cast<size_t>(t / p.touched[0] % p.touched[1])];
    c[2] = chunks[2][static_cast<size_t>(t / p.touched[0] / p.touched[1])];
    for (int component = 0; component < p.components; ++component) {
      const PidxChunkMap::RunAt run = map_.Locate(c, component, p.components);
      const uint64_t hz = map_.StoredHz(run.record_chunk);
      ids.push_back(hz >> bpb);
      const int64_t slot = static_cast<int64_t>(hz & ((uint64_t{1} << bpb) - 1));
      p.run_offset.push_back(slot * record_bytes + run.value_offset * p.component_bytes);
    }
  }
  p.blocks = ids;
  std::sort(p.blocks.begin(), p.blocks.end());
  p.blocks.erase(std::unique(p.blocks.begin(), p.blocks.end()), p.blocks.end());
  p.run_block.reserve(ids.size());
  for (uint64_t id : ids)
    p.run_block.push_back(static_cast<int32_t>(std::lower_bound(p.blocks.begin(), p.blocks.end(), id) - p.blocks.begin()));
  return p;
}

std::vector<uint64_t> PidxChunkSource::StoredBlocks(int field, uint64_t block) const {
  CheckKey(BlockKey{field, 0, block});
  return MakePlan(field, block).blocks;
}

void PidxChunkSource::Build(const Plan& p, const std::vector<const uint8_t*>& stored, uint8_t* out) const {
  const std::vector<uint8_t> fill = header().fields[static_cast<size_t>(p.field)].DefaultSample();
  const int64_t cb = p.component_bytes, sb = cb * p.components;
  const int nc = p.components;
  uint8_t* o = out;
  for (int64_t k2 = 0; k2 < p.count[2]; ++k2) {
    for (int64_t k1 = 0; k1 < p.count[1]; ++k1) {
      const bool row_inside = k2 < p.inside[2] && k1 < p.inside[1];
      const int64_t row_chunk = row_inside ? p.touched[0] * (p.chunk_of[1][k1] + p.touched[1] * p.chunk_of[2][k2]) : 0;
      const int64_t row_within = row_inside ? p.within[1][k1] + p.within[2][k2] : 0;
      for (int64_t k0 = 0; k0 < p.count[0]; ++k0, o += sb) {
        if (!row_inside || k0 >= p.inside[0]) {
          std::memcpy(o, fill.data(), static_cast<size_t>(sb));
          continue;
        }
        const int64_t run = (row_chunk + p.chunk_of[0][k0]) * nc;
        const int64_t value = (row_within + p.within[0][k0]) * cb;
        for (int c = 0; c < nc; ++c) {
          const uint8_t* base = stored[static_cast<size_t>(p.run_block[static_cast<size_t>(run + c)])];
          const uint8_t* from = base ? base + p.run_offset[static_cast<size_t>(run + c)] + value : fill.data() + c * cb;
          std::memcpy(o + c * cb, from, static_cast<size_t>(cb));
        }
      }
    }
  }
}

void PidxChunkSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) { FetchInto(keys, {}, sink); }

void PidxChunkSource::FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                                const BlockSink& sink) {
  for (const BlockKey& k : keys) {
    CheckKey(k);
    Check(header().time.Contains(k.time), ErrorCode::kNotFound,
          name() + ": timestep " + std::to_string(k.time) + " is not in the dataset");
  }
  using StoredKey = std::tuple<int, int64_t, uint64_t>;
  for (size_t begin = 0; begin < keys.size();) {
    // A batch: presented blocks whose stored blocks together stay below the byte bound.
    std::vector<Plan> plans;
    std::vector<size_t> plan_key;
    std::map<StoredKey, size_t> wanted;
    int64_t bytes = 0;
    size_t end = begin;
    for (; end < keys.size() && plans.size() < kMaxBatchBlocks; ++end) {
      Plan p = MakePlan(keys[end].field, keys[end].block);
      p.time = keys[end].time;
      const int64_t block_bytes = static_cast<int64_t>(stored_->DecodedBlockBytes(p.field));
      int64_t added = 0;
      for (uint64_t id : p.blocks) added += wanted.count(StoredKey{p.field, p.time, id}) ? 0 : block_bytes;
      if (!plans.empty() && bytes + added > options_.batch_bytes) break;
      bytes += added;
      for (uint64_t id : p.blocks) wanted.emplace(StoredKey{p.field, p.time, id}, wanted.size());
      plans.push_back(std::move(p));
      plan_key.push_back(end);
    }

    std::vector<BlockKey> stored_keys(wanted.size());
    for (const auto& [key, index] : wanted)
      stored_keys[index] = BlockKey{std::get<0>(key), std::get<1>(key), std::get<2>(key)};
    // Decoded stored blocks (null: absent). A raw payload is kept as the source's view.
    std::vector<const uint8_t*> data(stored_keys.size(), nullptr);
    std::vector<std::shared_ptr<const void>> owners(stored_keys.size());
    stored_->Fetch(stored_keys, [&](size_t i, EncodedBlock&& b) {
      if (!b.present) return;
      const size_t expected = stored_->DecodedBlockBytes(stored_keys[i].field);
      if (b.codec == Codec::kRaw && b.owner && b.size == expected) {
        data[i] = b.data;
        owners[i] = std::move(b.owner);
        return;
      }
      auto decoded = std::make_shared<ByteBuffer>(expected);
      DecodeBlock(*stored_, stored_keys[i].field, stored_keys[i].block, b, decoded->data());
      data[i] = decoded->data();
      owners[i] = std::move(decoded);
    });

    const auto build = [&](int64_t n) {
      const Plan& p = plans[static_cast<size_t>(n)];
      const size_t at = plan_key[static_cast<size_t>(n)];
      std::vector<const uint8_t*> blocks(p.blocks.size());
      bool any = false;
      for (size_t b = 0; b < p.blocks.size(); ++b) {
        blocks[b] = data[wanted.at(StoredKey{p.field, p.time, p.blocks[b]})];
        any = any || blocks[b] != nullptr;
      }
      EncodedBlock out;
      out.where = name() + ": block " + std::to_string(p.block) + " (built from PIDX chunk records)";
      if (!any) {  // every stored record it needs is absent (§4.6)
        sink(at, std::move(out));
        return;
      }
      const size_t size = DecodedBlockBytes(p.field);
      uint8_t* target = at < raw_targets.size() ? raw_targets[at] : nullptr;
      std::shared_ptr<ByteBuffer> own;
      if (!target) {
        own = std::make_shared<ByteBuffer>(size);
        target = own->data();
      }
      Build(p, blocks, target);
      out.present = true;
      out.codec = Codec::kRaw;
      out.row_major = true;
      out.data = target;
      out.size = size;
      out.owner = std::move(own);
      sink(at, std::move(out));
    };
    if (options_.threads == 1 || plans.size() <= 1) {
      for (size_t n = 0; n < plans.size(); ++n) build(static_cast<int64_t>(n));
    } else {
      ThreadPool::Shared().ParallelFor(static_cast<int64_t>(plans.size()), build);
    }
    begin = end;
  }
}

std::shared_ptr<PidxChunkSource> OpenPidxChunkBlocks(std::shared_ptr<const IdxHeader> header,
                                                     std::shared_ptr<const BlockLayout> layout,
                                                     const std::string& idx_path,
                                                     std::optional<FileIdentity> idx_identity,
                                                     ClassicBlockSource::Options options) {
  auto stored_header = std::make_shared<const IdxHeader>(PidxStoredHeader(*header));
  auto stored_layout = std::make_shared<const BlockLayout>(stored_header->bitmask, stored_header->bits_per_block);
  auto files = std::make_shared<ClassicBlockSource>(stored_header, stored_layout, idx_path, idx_identity, options);
  PidxChunkSource::Options chunk_options;
  chunk_options.threads = options.threads;
  return std::make_shared<PidxChunkSource>(std::move(header), std::move(layout), std::move(files), chunk_options);
}

}  // namespace hzio
