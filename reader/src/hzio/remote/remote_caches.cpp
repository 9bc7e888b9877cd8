#include "hzio/remote/remote_caches.h"

#include <atomic>
#include <cstdio>

#include "hzio/access/cached_block_source.h"
#include "hzio/access/disk_cached_block_source.h"
#include "hzio/util/error.h"

namespace hzio::internal_remote {

namespace {

std::string HeaderKey(const std::string& dataset_id) { return "header|" + dataset_id; }

}  // namespace

std::shared_ptr<BlockCache> ProcessBlockCache() {
  static const auto cache = std::make_shared<BlockCache>(int64_t{256} << 20);
  return cache;
}

std::shared_ptr<DiskCache> OpenDiskCache(const OpenOptions& options) {
  const std::string dir = options.cache_dir.value_or(DiskCache::DefaultDirectory());
  if (dir.empty()) return nullptr;
  const int64_t max_bytes = options.cache_max_bytes > 0 ? options.cache_max_bytes : DiskCache::DefaultMaxBytes();
  if (options.cache_dir) return DiskCache::ForDirectory(dir, max_bytes);
  try {
    return DiskCache::ForDirectory(dir, max_bytes);
  } catch (const Error& e) {
    // Nobody asked for this folder: reading goes on without it.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      std::fprintf(stderr, "hzio: warning: %s; remote blocks are not cached on disk (set HZIO_CACHE_DIR)\n", e.what());
    return nullptr;
  }
}

std::optional<CachedHeader> LoadCachedHeader(DiskCache& cache, const std::string& dataset_id) {
  std::optional<std::string> v = cache.Get(HeaderKey(dataset_id));
  if (!v) return std::nullopt;
  // "<validator>\n<version>\n<text>"
  const size_t a = v->find('\n');
  const size_t b = a == std::string::npos ? std::string::npos : v->find('\n', a + 1);
  if (b == std::string::npos) return std::nullopt;
  return CachedHeader{v->substr(b + 1), v->substr(0, a), v->substr(a + 1, b - a - 1)};
}

void StoreCachedHeader(DiskCache& cache, const std::string& dataset_id, const CachedHeader& h) {
  cache.Put(HeaderKey(dataset_id), h.validator + "\n" + h.version + "\n" + h.text);
}

std::shared_ptr<BlockSource> WithRemoteCaches(std::shared_ptr<BlockSource> source, const std::shared_ptr<DiskCache>& disk,
                                              const std::string& dataset_id, const OpenOptions& options) {
  if (disk) source = std::make_shared<DiskCachedBlockSource>(std::move(source), disk, dataset_id);
  if (options.memory_cache) source = std::make_shared<CachedBlockSource>(std::move(source), ProcessBlockCache());
  return source;
}

}  // namespace hzio::internal_remote
