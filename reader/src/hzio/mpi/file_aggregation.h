/// The writer's aggregation plan (phase 3): the blocks of one timestep are cut into contiguous
/// ranges, one per aggregator: whole files (idx-format.md §4.3, interleave 0) when there are at
/// least as many files as aggregators, else even block ranges, so several aggregators share a
/// file (the aggregator count is a tunable of its own, not implied by blocksperfile). An
/// aggregator's buffer holds every block of its range, field after field, in block order and hz
/// order inside a block, so an hz run of any rank lands in it with one contiguous put. Pure
/// arithmetic: every rank computes any aggregator's layout locally.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/format/idx_header.h"
#include "hzio/mpi/aggregation.h"

namespace hzio::mpi {

class FileAggregation {
 public:
  /// `requested` aggregators (0 = one per rank) are clamped to the ranks and the block count.
  FileAggregation(const IdxHeader& header, int64_t requested, int ranks);

  int64_t aggregators() const { return aggregators_; }
  int64_t num_files() const { return files_; }
  int ranks() const { return ranks_; }
  int Rank(int64_t aggregator) const { return AggregatorRank(aggregator, aggregators_, ranks_); }
  int64_t blocks_per_file() const { return bpf_; }
  int64_t total_blocks() const { return total_blocks_; }
  /// Whether aggregators own whole files (no file is shared).
  bool whole_files() const { return aggregators_ <= files_; }
  /// Blocks [begin, end) of an aggregator.
  Span Blocks(int64_t aggregator) const;
  /// Files [begin, end) touched by an aggregator's blocks (file index = block / bpf).
  Span Files(int64_t aggregator) const;
  /// Blocks [begin, end) of file `file` (the last file may be cut by the block count).
  Span FileBlocks(int64_t file) const;
  int64_t AggregatorOfBlock(uint64_t block) const;
  /// Byte offset of field f's region in an aggregator's buffer, and the buffer size.
  int64_t FieldBase(int64_t aggregator, int field) const;
  int64_t BufferBytes(int64_t aggregator) const { return FieldBase(aggregator, static_cast<int>(block_bytes_.size())); }
  int64_t block_bytes(int field) const { return block_bytes_[static_cast<size_t>(field)]; }

 private:
  int ranks_;
  int64_t bpf_, total_blocks_, files_, aggregators_;
  std::vector<int64_t> block_bytes_;  // per field
};

}  // namespace hzio::mpi
