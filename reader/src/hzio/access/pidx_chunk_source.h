/// The blocks of a PIDX chunked dataset as hzio presents it (format/pidx_chunking.h): a
/// BlockSource over the presented header — the full sample grid, `(bits)` extended by the chunks'
/// bits — whose blocks it builds from the stored chunk records fetched from the source of the
/// block files (a ClassicBlockSource over PidxStoredHeader). Every reader of blocks then reads the
/// dataset as a plain IDX one: the one assembler (box queries of the CLI, Dataset, Python, the C
/// API and the server), the decoded-block cache, the server's block queries (so OpenVisus clients
/// of `hzio serve` read it right, where OpenVisus on the files misreads it) and hzio::mpi's
/// one-phase reads.
///
/// A presented block is built row-major (idx-format.md §4.7): for each of its samples, the chunk
/// holding it and the sample's place inside the chunk give the value's place in a stored record
/// (PidxChunkMap). Its coarse blocks need whole chunks for one value each (chunk corners), so they
/// read 2^(chunk bits) times their size: that is how PIDX stored them. A fetch reads the stored
/// blocks of a batch of presented blocks at once (the inner source merges the reads), keeping the
/// stored bytes of one batch below a bound.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hzio/access/block_source.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/format/pidx_chunking.h"
#include "hzio/storage/file.h"

namespace hzio {

class PidxChunkSource : public BlockSource {
 public:
  struct Options {
    int threads = 0;                            // 1: build blocks on the calling thread only
    int64_t batch_bytes = int64_t{256} << 20;   // stored bytes held per batch (at least one block's)
  };

  /// `header` and `layout` are the presented dataset's (header.pidx_chunking set); `stored`
  /// serves the block files under PidxStoredHeader(*header).
  PidxChunkSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                  std::shared_ptr<BlockSource> stored, Options options);

  std::string Version() const override { return stored_->Version(); }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;
  /// Builds a block straight into its raw target when one is given (the sink sees data == target).
  void FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets,
                 const BlockSink& sink) override;

  /// The stored blocks holding the values of presented block `block` of `field`, ascending.
  std::vector<uint64_t> StoredBlocks(int field, uint64_t block) const;
  /// The source of the block files (stored chunk records).
  const std::shared_ptr<BlockSource>& stored() const { return stored_; }

 private:
  struct Plan;
  Plan MakePlan(int field, uint64_t block) const;
  void Build(const Plan& plan, const std::vector<const uint8_t*>& stored, uint8_t* out) const;

  std::shared_ptr<BlockSource> stored_;
  Options options_;
  PidxChunkMap map_;
};

/// The blocks of a local chunked dataset (`header` presented, pidx_chunking set): its block files
/// read by a ClassicBlockSource under PidxStoredHeader, presented by a PidxChunkSource.
std::shared_ptr<PidxChunkSource> OpenPidxChunkBlocks(std::shared_ptr<const IdxHeader> header,
                                                     std::shared_ptr<const BlockLayout> layout,
                                                     const std::string& idx_path,
                                                     std::optional<FileIdentity> idx_identity,
                                                     ClassicBlockSource::Options options);

}  // namespace hzio
