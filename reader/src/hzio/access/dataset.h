/// A dataset opened for reading, local (`.idx` path) or remote (a URL whose scheme has an opener,
/// dataset_openers.h), and the queries it answers: a box at a resolution (idx-format.md §3.4) and
/// single blocks (§4.1, for servers). Its blocks come from a BlockSource (block_source.h); box
/// queries are assembled from them by the one assembler (box_assembler.h) unless a subclass
/// answers them otherwise (a remote server's own box query).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hzio/access/array.h"
#include "hzio/access/block_source.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/util/error.h"

namespace hzio {

/// A box query. Missing values take the dataset's defaults: the whole logic box, full
/// resolution, the first field, the default timestep.
struct BoxQuery {
  std::optional<Box> box;     // absolute logic coordinates, exclusive upper corner
  std::optional<int> level;   // end level H: levels 0..H (or only H when only_level)
  bool only_level = false;    // fromh == toh (§3.4): only level H's own samples
  std::string field;          // "" = first field
  std::optional<int64_t> time;
};

/// What a box query returns: the samples on `grid` (row-major over grid.count).
struct BoxResult {
  Grid grid;
  Array data;
};

/// A block decoded from storage, in its stored layout (§4.7).
struct DecodedBlock {
  uint64_t id = 0;
  bool row_major = false;
  Grid grid;                  // the block's sample lattice (§4.1)
  std::vector<uint8_t> bytes; // 2^bpb samples
};

struct OpenOptions {
  int threads = 0;                   // decode threads; 0 = hardware concurrency, 1 = the caller only
  int64_t max_query_bytes = int64_t{16} << 30;  // refuse larger box results (kTooLarge)
  /// Remote datasets (HTTP, S3, mod_visus block reads): the folder of the persistent block cache
  /// shared by processes (storage/disk_cache.h); nullopt = DiskCache::DefaultDirectory()
  /// (HZIO_CACHE_DIR, else ~/.cache/hzio); "" = no disk cache.
  std::optional<std::string> cache_dir;
  /// Its size limit in bytes; 0 = DiskCache::DefaultMaxBytes() (HZIO_CACHE_SIZE, else 10 GiB).
  int64_t cache_max_bytes = 0;
  /// Remote datasets: keep decoded blocks in the process's shared in-memory LRU (256 MiB). A
  /// server, which keeps its own, turns it off.
  bool memory_cache = true;
};

class Dataset {
 public:
  /// A dataset whose blocks come from `blocks` (header and layout are the source's); `source` is
  /// the path or URL it was opened from.
  Dataset(std::shared_ptr<BlockSource> blocks, std::string source, OpenOptions options);
  virtual ~Dataset() = default;

  /// The validated header.
  const IdxHeader& header() const { return header_; }
  const BlockLayout& layout() const { return *layout_; }
  /// The path or URL it was opened from.
  const std::string& source() const { return source_; }
  /// Opaque; changes with every committed version of the dataset (TEAM.md contract 3): the
  /// version this object reads, fixed when it was opened. Key caches and ETags on it.
  std::string Version() const { return blocks_->Version(); }
  /// Where its blocks come from (for block servers, caches, and readers of parts of blocks).
  const std::shared_ptr<BlockSource>& block_source() const { return blocks_; }

  /// Resolves defaults and validates a query against the header; throws kNotFound (field, time),
  /// kOutOfRange (level, box outside the dataset), kInvalidArgument.
  struct Resolved {
    int field;
    int64_t time;
    Box box;
    LevelRange levels;
    Grid grid;
  };
  Resolved Resolve(const BoxQuery& query) const;

  /// Reads a box query into a new array.
  BoxResult Read(const BoxQuery& query);
  /// Reads into caller memory of exactly the result's byte size (lets callers reuse buffers).
  /// Throws kChanged when the dataset was replaced while it was read (reopen it).
  virtual void ReadInto(const Resolved& query, uint8_t* out);

  /// One block in its stored layout, or nullopt if it is absent (§4.6). Throws kNotFound for an
  /// unknown field or timestep, kOutOfRange for a block beyond the last.
  std::optional<DecodedBlock> ReadBlock(int field, int64_t time, uint64_t block);

 protected:
  IdxHeader header_;
  std::shared_ptr<const BlockLayout> layout_;
  std::string source_;
  OpenOptions options_;
  std::shared_ptr<BlockSource> blocks_;
};

/// Opens a `.idx` path, or a URL through the opener registered for its scheme — when built with
/// HTTP support: `http(s)://HOST/mod_visus?dataset=NAME` (a server), `http(s)://HOST/PATH/visus.idx`
/// (a web server), `s3://BUCKET/KEY/visus.idx` and OpenVisus's `http(s)://HOST/BUCKET/KEY/visus.idx?
/// endpoint_url=...` (S3). Throws kNotFound for a missing file, kUnsupported for a URL scheme
/// nobody reads.
std::shared_ptr<Dataset> OpenDataset(const std::string& path_or_url, const OpenOptions& options = {});

/// Opens a local `.idx` file: classic block files, or one file per block when `(arco)` > 0.
std::shared_ptr<Dataset> OpenLocalDataset(const std::string& idx_path, const OpenOptions& options = {});

/// Whether `path_or_url` is a URL (any scheme but file://) rather than a local path.
bool IsRemoteUrl(const std::string& path_or_url);

}  // namespace hzio
