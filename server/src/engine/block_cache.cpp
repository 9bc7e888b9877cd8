#include "engine/block_cache.h"

namespace hzio::server {

namespace {
// Bookkeeping cost of one entry, so that caching many absent blocks is bounded too.
constexpr int64_t kEntryOverhead = 128;
}  // namespace

size_t BlockKeyHash::operator()(const BlockKey& k) const {
  uint64_t h = k.block * 0x9E3779B97F4A7C15ull;
  h ^= (static_cast<uint64_t>(k.time) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2));
  h ^= (static_cast<uint64_t>(k.field) << 32 | k.dataset) + 0x85EBCA6B + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

std::shared_ptr<const DecodedBlock> BlockCache::Get(const BlockKey& key, const Loader& load) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++hits_;
      return it->second->block;
    }
    ++misses_;
  }
  // Read and decode outside the lock: other requests keep hitting the cache meanwhile. Two
  // concurrent misses of one block both load it; the second insert just refreshes the entry.
  std::optional<DecodedBlock> loaded = load();
  std::shared_ptr<const DecodedBlock> block;
  if (loaded) block = std::make_shared<const DecodedBlock>(std::move(*loaded));
  Insert(key, block);
  return block;
}

void BlockCache::Insert(const BlockKey& key, std::shared_ptr<const DecodedBlock> block) {
  int64_t bytes = kEntryOverhead + (block ? static_cast<int64_t>(block->bytes.size()) : 0);
  if (bytes > capacity_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front(Entry{key, std::move(block), bytes});
  index_[key] = lru_.begin();
  bytes_ += bytes;
  while (bytes_ > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
    ++evictions_;
  }
}

BlockCacheStats BlockCache::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return BlockCacheStats{hits_, misses_, static_cast<int64_t>(lru_.size()), bytes_, capacity_, evictions_};
}

}  // namespace hzio::server
