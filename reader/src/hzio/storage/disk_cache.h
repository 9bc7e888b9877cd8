/// A persistent cache of byte strings in one directory, shared by every process that uses it
/// (remote datasets keep their blocks and headers there, access/disk_cached_block_source.h):
///  * an entry is one file, `<dir>/<2 hex>/<30 hex>` (a hash of its key), holding a magic word,
///    the key, the value's length and a CRC-32 of both: a truncated or damaged entry (a crash, a
///    full disk, someone's editor) is detected on read, removed, and reported as a miss;
///  * writes go to a temporary name in the same folder and are renamed into place, so readers in
///    other processes see a whole entry or none, and two processes storing one key both succeed;
///  * a size limit with least-recently-used eviction across processes: a hit stamps the entry's
///    mtime (at most once a minute), and the process that finds the cache over its limit deletes
///    the oldest entries down to 90% of it (one process at a time, under flock(<dir>/.evict.lock));
///    leftovers of interrupted writes are removed then too;
///  * nothing about the entries is kept only in memory, so the cache is reused after a restart.
/// Writing is best effort: a cache that cannot be written (full disk, read-only) never fails a read;
/// the first such failure is reported once on stderr and counted in stats().
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace hzio {

class DiskCache {
 public:
  /// Opens (creating) `dir`; `max_bytes` bounds the entries' total size. Throws kIo naming the
  /// directory when it cannot be created or is not a directory.
  DiskCache(std::string dir, int64_t max_bytes);
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  /// The process's one instance for `dir` (made on first use; a later, different `max_bytes`
  /// replaces the limit).
  static std::shared_ptr<DiskCache> ForDirectory(const std::string& dir, int64_t max_bytes);
  /// HZIO_CACHE_DIR, else $XDG_CACHE_HOME/hzio, else $HOME/.cache/hzio; "" when HZIO_CACHE_DIR is
  /// "off" (caching disabled) or no home is known.
  static std::string DefaultDirectory();
  /// HZIO_CACHE_SIZE (bytes, or with a k/m/g/t suffix), else 10 GiB.
  static int64_t DefaultMaxBytes();

  const std::string& dir() const { return dir_; }
  int64_t max_bytes() const { return max_bytes_; }

  /// The value stored under `key`, or nullopt when there is none or it was damaged (then removed).
  std::optional<std::string> Get(const std::string& key);
  /// Stores `value` under `key`, replacing any earlier value. Values over half the limit are not kept.
  void Put(const std::string& key, std::string_view value);
  /// Removes the entry of `key`, if any.
  void Remove(const std::string& key);
  /// Deletes least recently used entries until at most `target_bytes` remain; returns the bytes kept.
  int64_t Evict(int64_t target_bytes);

  struct Stats {
    uint64_t hits = 0, misses = 0, damaged = 0, stores = 0, store_failures = 0, evicted = 0;
  };
  Stats stats() const;

  /// The file holding `key`'s entry (tests damage it on purpose).
  std::string EntryPath(const std::string& key) const;

 private:
  void NoteStoreFailure(const std::string& what);
  int64_t ScanBytes();

  std::string dir_;
  std::atomic<int64_t> max_bytes_;
  std::once_flag scanned_;
  std::atomic<int64_t> approx_bytes_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, damaged_{0}, stores_{0}, store_failures_{0}, evicted_{0};
  std::atomic<bool> warned_{false};
};

}  // namespace hzio
