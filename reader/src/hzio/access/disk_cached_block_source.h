/// A BlockSource decorator that keeps another source's blocks on disk (storage/disk_cache.h) as
/// they were fetched — encoded payload, codec and layout bit, and absent blocks too — so that a
/// block once read from a remote store (HTTP, S3, a mod_visus server) is read from the local disk
/// afterwards, by this process or any other, after a restart, and while the store is unreachable.
/// Entries are keyed on the dataset's identity and Version() (TEAM.md contract 3), so a changed
/// dataset never serves blocks of its earlier version. It sits below the decoded-block LRU
/// (cached_block_source.h): hits there cost nothing, hits here a file read and a decode.
#pragma once

#include <memory>
#include <string>

#include "hzio/access/block_source.h"
#include "hzio/storage/disk_cache.h"

namespace hzio {

class DiskCachedBlockSource : public BlockSource {
 public:
  /// `dataset_id` names the dataset stably across processes (its URL without credentials).
  DiskCachedBlockSource(std::shared_ptr<BlockSource> inner, std::shared_ptr<DiskCache> cache, std::string dataset_id);

  std::string Version() const override { return inner_->Version(); }
  /// Cached blocks come from the disk (on the shared pool's threads), the rest from the inner
  /// source in one batch, stored as they arrive. When the inner source is unreachable, the error
  /// says how many of the blocks were cached.
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;

  BlockSource& inner() const { return *inner_; }
  DiskCache& cache() const { return *cache_; }
  /// The cache key of a block.
  std::string EntryKey(const BlockKey& key) const;

 private:
  std::shared_ptr<BlockSource> inner_;
  std::shared_ptr<DiskCache> cache_;
  std::string prefix_;  // "block|<dataset id>|<version>|"
};

}  // namespace hzio
