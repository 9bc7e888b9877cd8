/// The caches every remote dataset of a process shares: the decoded-block LRU in memory
/// (access/block_cache.h) and the persistent disk cache (storage/disk_cache.h) with the headers
/// kept in it, so that a dataset whose server or store is unreachable still opens from the cache
/// (its blocks then come from the disk cache only).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "hzio/access/block_cache.h"
#include "hzio/access/dataset.h"
#include "hzio/storage/disk_cache.h"

namespace hzio::internal_remote {

/// The process's decoded-block cache of remote datasets (256 MiB).
std::shared_ptr<BlockCache> ProcessBlockCache();

/// The disk cache `options` ask for, or null when disabled. A cache folder the user named that
/// cannot be made is an error (kIo); the default one failing only warns on stderr, once.
std::shared_ptr<DiskCache> OpenDiskCache(const OpenOptions& options);

/// A dataset's header as last fetched: its text, the validator it came with (ObjectValidator of
/// byte_range.h, or the readdataset ETag) and the dataset version derived from it.
struct CachedHeader {
  std::string text;
  std::string validator;
  std::string version;
};
std::optional<CachedHeader> LoadCachedHeader(DiskCache& cache, const std::string& dataset_id);
void StoreCachedHeader(DiskCache& cache, const std::string& dataset_id, const CachedHeader& header);

/// Wraps a remote dataset's block source in the disk cache (when given) and then, when the options
/// want it, in the process's decoded-block LRU.
std::shared_ptr<BlockSource> WithRemoteCaches(std::shared_ptr<BlockSource> source, const std::shared_ptr<DiskCache>& disk,
                                              const std::string& dataset_id, const OpenOptions& options);

}  // namespace hzio::internal_remote
