/// A dataset opened for reading, local (`.idx` path) or remote (mod_visus URL), and the queries it
/// answers: a box at a resolution (idx-format.md §3.4) and single blocks (§4.1, for servers).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hzio/access/array.h"
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
  int threads = 0;                   // decode threads; 0 = hardware concurrency
  int64_t max_query_bytes = int64_t{16} << 30;  // refuse larger box results (kTooLarge)
  // Local files: payloads come from a read-only mapping of each file, kept while the dataset is
  // open, which saves pread's copy once its pages are mapped. false: blocks a query takes whole
  // are read with pread instead, for a dataset opened to be read once (a restart), where
  // faulting a fresh mapping in costs more than the copy (2x on a 4 MiB read here); blocks it
  // takes a part of still come from the mapping, which faults in only the pages of that part.
  bool map_whole_blocks = true;
};

class Dataset {
 public:
  virtual ~Dataset() = default;

  /// The validated header.
  const IdxHeader& header() const { return header_; }
  const BlockLayout& layout() const { return *layout_; }
  /// The path or URL it was opened from.
  const std::string& source() const { return source_; }

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
  virtual void ReadInto(const Resolved& query, uint8_t* out) = 0;

  /// One block in its stored layout, or nullopt if it is absent (§4.6).
  virtual std::optional<DecodedBlock> ReadBlock(int field, int64_t time, uint64_t block) = 0;

 protected:
  Dataset(IdxHeader header, std::string source, OpenOptions options);

  IdxHeader header_;
  std::shared_ptr<const BlockLayout> layout_;
  std::string source_;
  OpenOptions options_;
};

/// Opens a `.idx` path or an `http(s)://.../mod_visus?dataset=NAME` URL.
std::shared_ptr<Dataset> OpenDataset(const std::string& path_or_url, const OpenOptions& options = {});

/// Whether `path_or_url` names a remote dataset (http:// or https://).
bool IsRemoteUrl(const std::string& path_or_url);

}  // namespace hzio
