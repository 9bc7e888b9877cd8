/// Blocks of a classic IDX dataset (multi-block files with a block table each, idx-format.md
/// §4.3–4.6) on a web server or in a bucket, read with HTTP Range requests: a file's table is
/// fetched once (its first BlockTableBytes) and kept with the file's ETag; the payloads a fetch
/// needs are merged into few ranges per file (nearby payloads share a request) and all requested
/// at once, many in flight. Ranges carry `If-Match: <ETag>`, so a file replaced after its table was
/// read answers 412 instead of mixing versions. Payloads are decoded on the shared thread pool as
/// responses arrive, while the transfers go on. A missing file means absent blocks (§4.6); a
/// missing, short or replaced file after the `.idx` changed is kChanged.
#pragma once

#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/remote/object_block_source.h"

namespace hzio::internal_remote {

class RemoteClassicBlockSource : public ObjectBlockSource {
 public:
  RemoteClassicBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                           std::shared_ptr<const ObjectStore> store, std::string version, std::string idx_validator);

  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;

  /// Payloads at most this far apart are fetched by one request (the gap is read and dropped);
  /// a merged request stays at most kMaxRangeBytes long.
  static constexpr uint64_t kMaxGapBytes = 256 * 1024;
  static constexpr uint64_t kMaxRangeBytes = 16 * 1024 * 1024;

 private:
  struct FileTable {
    std::string key;
    bool exists = false;
    std::string etag;
    uint64_t size = 0;
    std::vector<BlockEntry> entries;  // blocksperfile × nfields slots (§4.3)
  };
  /// The tables of `keys` (object keys of block files), from the cache or fetched together.
  std::vector<std::shared_ptr<const FileTable>> Tables(const std::vector<std::string>& keys);
  void Remember(const std::shared_ptr<const FileTable>& table);
  void Forget(const std::string& key);

  BlockFiles files_;
  int64_t slots_;
  std::mutex mu_;
  std::list<std::shared_ptr<const FileTable>> lru_;  // most recent first
  std::unordered_map<std::string, std::list<std::shared_ptr<const FileTable>>::iterator> index_;
};

}  // namespace hzio::internal_remote
