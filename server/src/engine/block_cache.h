/// A size-bounded LRU cache of decoded blocks (idx-format.md §4.7, stored layout) shared by every
/// request of the server: hot coarse blocks (block 0 above all) are read and decoded once.
/// Absent blocks (§4.6) are cached too, as a null entry, so repeated misses cost nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "hzio/access/dataset.h"

namespace hzio::server {

struct BlockKey {
  uint32_t dataset = 0;
  int32_t field = 0;
  int64_t time = 0;
  uint64_t block = 0;
  bool operator==(const BlockKey& o) const {
    return dataset == o.dataset && field == o.field && time == o.time && block == o.block;
  }
};

struct BlockKeyHash {
  size_t operator()(const BlockKey& k) const;
};

struct BlockCacheStats {
  int64_t hits = 0, misses = 0, entries = 0, bytes = 0, capacity = 0, evictions = 0;
};

class BlockCache {
 public:
  explicit BlockCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}

  using Loader = std::function<std::optional<DecodedBlock>()>;
  /// The cached block, or the result of `load` (then cached); nullptr when the block is absent.
  /// Errors thrown by `load` propagate and nothing is cached.
  std::shared_ptr<const DecodedBlock> Get(const BlockKey& key, const Loader& load);

  BlockCacheStats Stats() const;

 private:
  struct Entry {
    BlockKey key;
    std::shared_ptr<const DecodedBlock> block;
    int64_t bytes;
  };
  void Insert(const BlockKey& key, std::shared_ptr<const DecodedBlock> block);

  int64_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<BlockKey, std::list<Entry>::iterator, BlockKeyHash> index_;
  int64_t bytes_ = 0, hits_ = 0, misses_ = 0, evictions_ = 0;
};

}  // namespace hzio::server
