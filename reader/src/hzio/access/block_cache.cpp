#include "hzio/access/block_cache.h"

namespace hzio {

size_t BlockCache::KeyHash::operator()(const Key& k) const {
  uint64_t h = k.block * 0x9E3779B97F4A7C15ull;
  h ^= static_cast<uint64_t>(k.time) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
  h ^= (static_cast<uint64_t>(static_cast<uint32_t>(k.field)) << 32 | k.source) + 0x85EBCA6Bull + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

uint32_t BlockCache::Intern(const std::string& source_and_version) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = sources_.emplace(source_and_version, static_cast<uint32_t>(sources_.size()));
  return it->second;
}

BlockCache::Lookup BlockCache::Begin(const Key& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++hits_;
    return Lookup{Lookup::kHit, it->second->value, {}};
  }
  if (auto it = loading_.find(key); it != loading_.end()) {
    ++hits_;  // loaded once, by another reader
    return Lookup{Lookup::kWait, nullptr, it->second->future};
  }
  ++misses_;
  loading_.emplace(key, std::make_shared<Loading>());
  return Lookup{Lookup::kLoad, nullptr, {}};
}

void BlockCache::Finish(const Key& key, Value value) {
  std::shared_ptr<Loading> loading;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = loading_.find(key); it != loading_.end()) {
      loading = std::move(it->second);
      loading_.erase(it);
    }
    const int64_t bytes = kEntryOverhead + (value ? static_cast<int64_t>(value->bytes.size()) : 0);
    if (bytes <= capacity_) {
      if (auto it = index_.find(key); it != index_.end()) {
        bytes_ -= it->second->bytes;
        lru_.erase(it->second);
        index_.erase(it);
      }
      lru_.push_front(Entry{key, value, bytes});
      index_[key] = lru_.begin();
      bytes_ += bytes;
      while (bytes_ > capacity_ && !lru_.empty()) {
        bytes_ -= lru_.back().bytes;
        index_.erase(lru_.back().key);
        lru_.pop_back();
        ++evictions_;
      }
    }
  }
  if (loading) loading->promise.set_value(std::move(value));
}

void BlockCache::Fail(const Key& key, std::exception_ptr error) {
  std::shared_ptr<Loading> loading;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = loading_.find(key);
    if (it == loading_.end()) return;
    loading = std::move(it->second);
    loading_.erase(it);
  }
  loading->promise.set_exception(std::move(error));
}

BlockCacheStats BlockCache::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return BlockCacheStats{hits_, misses_, evictions_, static_cast<int64_t>(lru_.size()), bytes_, capacity_};
}

}  // namespace hzio
