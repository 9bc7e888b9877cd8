/// Where a dataset's blocks come from (TEAM.md contract 1): one interface in front of every way
/// blocks are stored — classic multi-block files (idx-format.md §4.3–4.6), ARCO one-file-per-block
/// and cloud objects (§4.12), a mod_visus server's block queries (§7.5) — so that one assembler
/// (box_assembler.h) turns blocks into box results and one decoded-block cache (block_cache.h)
/// serves every backend.
///
/// A fetch is batched: the source gets every block a query needs at once, so it can merge nearby
/// reads (classic files), keep many requests in flight (HTTP, S3) and spread the work over
/// threads. Blocks are handed to a sink as views (pointer + size + an owner keeping the bytes
/// alive), never copied by the interface; the sink may run on several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "hzio/codec/codec.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"
#include "hzio/util/error.h"

namespace hzio {

/// One block of one field at one timestep.
struct BlockKey {
  int field = 0;
  int64_t time = 0;
  uint64_t block = 0;
};

/// A block as stored: its payload (encoded with `codec`, samples in hz or row-major order, §4.7)
/// or, when `present` is false, the fact that it is absent (§4.6: the samples keep the field's
/// default value).
struct EncodedBlock {
  bool present = false;
  Codec codec = Codec::kRaw;
  bool row_major = false;  // the stored layout bit (§4.5 flags 0x10)
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;  // keeps `data` alive as long as the receiver holds it
  std::string where;                  // "<file>: block N" or the request URL, for errors
};

/// Receives block `index` (of the fetched keys). May be called on several threads at once, in any
/// order, exactly once per key unless the fetch throws. Errors it throws end the fetch.
using BlockSink = std::function<void(size_t index, EncodedBlock&& block)>;

/// The error of TEAM.md contract 3: the dataset named `source` was replaced by a new version
/// while it was being read (kChanged, "dataset changed while reading; reopen it").
Error DatasetChangedError(const std::string& source);

class BlockSource {
 public:
  /// `name` is the path or URL the blocks come from (errors, cache keys).
  BlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout, std::string name);
  virtual ~BlockSource() = default;
  BlockSource(const BlockSource&) = delete;
  BlockSource& operator=(const BlockSource&) = delete;

  const IdxHeader& header() const { return *header_; }
  const std::shared_ptr<const IdxHeader>& shared_header() const { return header_; }
  const BlockLayout& layout() const { return *layout_; }
  const std::shared_ptr<const BlockLayout>& shared_layout() const { return layout_; }
  const std::string& name() const { return name_; }
  /// Bytes of a decoded block of `field` (2^bpb samples, §4.7).
  size_t DecodedBlockBytes(int field) const;

  /// An opaque string that changes with every committed version of the dataset (TEAM.md
  /// contract 3): caches and ETags are keyed on it.
  virtual std::string Version() const = 0;

  /// Delivers every key to `sink`. Throws kNotFound for a field index outside the header,
  /// kOutOfRange for a block beyond the last, kCorrupt / kIo naming the file or URL for storage
  /// that does not read as the format says, kChanged when the dataset was replaced while read.
  virtual void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) = 0;

  /// Fetch, with a hint: `raw_targets[i]` (or null) is memory of DecodedBlockBytes(keys[i].field)
  /// where a raw payload of exactly that size may be read straight into place (the sink then sees
  /// `data == raw_targets[i]`), saving a copy. Sources that cannot do that ignore it (default).
  virtual void FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                         const BlockSink& sink);

 protected:
  /// Throws kNotFound / kOutOfRange for a key outside the header (see Fetch).
  void CheckKey(const BlockKey& key) const;

 private:
  std::shared_ptr<const IdxHeader> header_;
  std::shared_ptr<const BlockLayout> layout_;
  std::string name_;
};

}  // namespace hzio
