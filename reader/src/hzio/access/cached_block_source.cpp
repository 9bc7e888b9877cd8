#include "hzio/access/cached_block_source.h"

#include <exception>
#include <vector>

#include "hzio/access/box_assembler.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {
constexpr size_t kHitsPerTask = 16;  // hits are placed on the thread pool above this many
}  // namespace

CachedBlockSource::CachedBlockSource(std::shared_ptr<BlockSource> inner, std::shared_ptr<BlockCache> cache)
    : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()),
      inner_(std::move(inner)),
      cache_(std::move(cache)) {}

void CachedBlockSource::FetchDecoded(std::span<const BlockKey> keys,
                                     const std::function<void(size_t, const BlockCache::Value&)>& deliver) {
  const uint32_t source = cache_->Intern(name() + "\n" + inner_->Version());
  auto key_of = [&](const BlockKey& k) { return BlockCache::Key{source, k.field, k.time, k.block}; };
  std::vector<std::pair<size_t, BlockCache::Value>> hits;
  std::vector<std::pair<size_t, std::shared_future<BlockCache::Value>>> waits;
  std::vector<size_t> loads;
  for (size_t i = 0; i < keys.size(); ++i) CheckKey(keys[i]);
  for (size_t i = 0; i < keys.size(); ++i) {
    BlockCache::Lookup found = cache_->Begin(key_of(keys[i]));
    if (found.kind == BlockCache::Lookup::kHit) hits.emplace_back(i, std::move(found.value));
    else if (found.kind == BlockCache::Lookup::kWait) waits.emplace_back(i, std::move(found.pending));
    else loads.push_back(i);
  }

  // Misses first (every key this call must load is then finished or failed, whatever happens
  // next, so no other reader waits on it forever), in one fetch from the inner source.
  std::vector<BlockKey> load_keys;
  std::vector<std::shared_ptr<DecodedBlock>> decoded;
  std::vector<uint8_t*> targets;
  std::vector<char> done(loads.size(), 0);
  try {
    for (size_t i : loads) {
      load_keys.push_back(keys[i]);
      auto d = std::make_shared<DecodedBlock>();
      d->id = keys[i].block;
      d->grid = layout().BlockGrid(keys[i].block);
      d->bytes.resize(DecodedBlockBytes(keys[i].field));
      targets.push_back(d->bytes.data());
      decoded.push_back(std::move(d));
    }
    inner_->FetchInto(load_keys, targets, [&](size_t j, EncodedBlock&& b) {
      const BlockKey& k = load_keys[j];
      BlockCache::Value value;
      if (b.present) {
        DecodeBlock(*inner_, k.field, k.block, b, decoded[j]->bytes.data());
        decoded[j]->row_major = b.row_major;
        value = decoded[j];
      }
      cache_->Finish(key_of(k), value);
      done[j] = 1;
      deliver(loads[j], value);
    });
  } catch (...) {
    for (size_t j = 0; j < loads.size(); ++j)
      if (!done[j]) cache_->Fail(key_of(keys[loads[j]]), std::current_exception());
    throw;
  }

  if (hits.size() > kHitsPerTask) {
    const int64_t tasks = static_cast<int64_t>((hits.size() + kHitsPerTask - 1) / kHitsPerTask);
    ThreadPool::Shared().ParallelFor(tasks, [&](int64_t t) {
      const size_t begin = static_cast<size_t>(t) * kHitsPerTask, end = std::min(hits.size(), begin + kHitsPerTask);
      for (size_t h = begin; h < end; ++h) deliver(hits[h].first, hits[h].second);
    });
  } else {
    for (const auto& [i, value] : hits) deliver(i, value);
  }
  for (auto& [i, pending] : waits) deliver(i, pending.get());  // rethrows the loader's error
}

void CachedBlockSource::Fetch(std::span<const BlockKey> keys, const BlockSink& sink) {
  FetchDecoded(keys, [&](size_t i, const BlockCache::Value& value) {
    EncodedBlock b;
    b.where = name() + ": block " + std::to_string(keys[i].block);
    if (value) {
      b.present = true;
      b.codec = Codec::kRaw;
      b.row_major = value->row_major;
      b.data = value->bytes.data();
      b.size = value->bytes.size();
      b.owner = value;
    }
    sink(i, std::move(b));
  });
}

std::vector<BlockCache::Value> CachedBlockSource::Blocks(std::span<const BlockKey> keys) {
  std::vector<BlockCache::Value> out(keys.size());
  FetchDecoded(keys, [&](size_t i, const BlockCache::Value& value) { out[i] = value; });
  return out;
}

}  // namespace hzio
