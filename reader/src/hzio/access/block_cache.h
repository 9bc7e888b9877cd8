/// One byte-bounded LRU cache of decoded blocks (idx-format.md §4.7, stored layout), shared by
/// every reader that wants one: the server (hot coarse blocks, block 0 above all, are read and
/// decoded once for every request) and remote datasets opened with `cached=1`. Entries are keyed
/// by the block source's identity and version (a new version of a dataset never hits the old
/// one's blocks), field, time and block; absent blocks (§4.6) are cached as such. Thread-safe;
/// one loader per key at a time (concurrent misses of a block wait for the first). It is filled
/// through CachedBlockSource (cached_block_source.h).
#pragma once

#include <cstdint>
#include <exception>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "hzio/access/dataset.h"

namespace hzio {

struct BlockCacheStats {
  int64_t hits = 0, misses = 0, evictions = 0, entries = 0, bytes = 0, capacity = 0;
};

class BlockCache {
 public:
  /// Bookkeeping charged per entry on top of its samples, so caching many absent blocks is
  /// bounded too.
  static constexpr int64_t kEntryOverhead = 128;

  explicit BlockCache(int64_t capacity_bytes) : capacity_(capacity_bytes) {}
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  BlockCacheStats Stats() const;

  /// A decoded block or absence (null).
  using Value = std::shared_ptr<const DecodedBlock>;

  struct Key {
    uint32_t source = 0;  // Intern()ed source identity + version
    int32_t field = 0;
    int64_t time = 0;
    uint64_t block = 0;
    bool operator==(const Key&) const = default;
  };

  /// A small number standing for one (source identity, version) string.
  uint32_t Intern(const std::string& source_and_version);

  /// What Begin() found: the value (kHit), a load under way elsewhere to wait for (kWait), or
  /// the caller's turn to load and then Finish() or Fail() (kLoad).
  struct Lookup {
    enum Kind { kHit, kWait, kLoad } kind;
    Value value;
    std::shared_future<Value> pending;
  };
  Lookup Begin(const Key& key);
  /// Stores a loaded value (unless larger than the whole cache) and wakes the waiters.
  void Finish(const Key& key, Value value);
  /// Wakes the waiters with `error`; nothing is cached.
  void Fail(const Key& key, std::exception_ptr error);

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    Key key;
    Value value;
    int64_t bytes;
  };

  int64_t capacity_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
  struct Loading {
    std::promise<Value> promise;
    std::shared_future<Value> future = promise.get_future().share();
  };
  std::unordered_map<Key, std::shared_ptr<Loading>, KeyHash> loading_;
  std::map<std::string, uint32_t> sources_;
  int64_t bytes_ = 0, hits_ = 0, misses_ = 0, evictions_ = 0;
};

}  // namespace hzio
