/// A BlockSource that serves decoded blocks from a BlockCache (block_cache.h) and fetches the
/// misses from the source it wraps, in one batched fetch (so the inner source still merges reads
/// or keeps requests in flight). Any source can be cached this way: the server wraps every
/// dataset's source, remote datasets opened with `cached=1` wrap their mod_visus source.
/// Blocks come out decoded (codec raw, stored layout), as views of the cache's entries.
#pragma once

#include <functional>
#include <memory>
#include <span>

#include "hzio/access/block_cache.h"
#include "hzio/access/block_source.h"

namespace hzio {

class CachedBlockSource : public BlockSource {
 public:
  CachedBlockSource(std::shared_ptr<BlockSource> inner, std::shared_ptr<BlockCache> cache);

  std::string Version() const override { return inner_->Version(); }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;

  /// The decoded blocks of `keys` (null = absent, §4.6), through the cache.
  std::vector<BlockCache::Value> Blocks(std::span<const BlockKey> keys);

  BlockSource& inner() const { return *inner_; }

 private:
  // Calls deliver(i, value) for every key (on several threads at once for many hits).
  void FetchDecoded(std::span<const BlockKey> keys,
                    const std::function<void(size_t, const BlockCache::Value&)>& deliver);

  std::shared_ptr<BlockSource> inner_;
  std::shared_ptr<BlockCache> cache_;
};

}  // namespace hzio
