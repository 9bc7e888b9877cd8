/// The writer's aggregation plan (phase 3): the hz space of one timestep is cut into contiguous
/// ranges, one per aggregator: whole files (idx-format.md §4.3, interleave 0) when there are at
/// least as many files as aggregators, else even ranges, so several aggregators share a file (the
/// aggregator count is a tunable of its own, not implied by blocksperfile). The grain is a unit of
/// 2^unit_bits() samples: a whole block, or — when every field is raw and there are fewer blocks
/// than aggregators wanted — an aligned hz sub-range of a block, whose bytes are a contiguous part
/// of the block's payload, so every aggregator gets a share of even a one-block dataset. An
/// aggregator's buffer holds its units, field after field, in hz order, so an hz run of any rank
/// lands in it with one contiguous store or put. Pure arithmetic: every rank computes any
/// aggregator's layout locally.
///
/// Bounded memory: a plan can cover part of the timestep's files only (a round). When the
/// aggregators' buffers for the whole timestep would exceed the memory budget, Rounds() cuts the
/// files into rounds whose buffers fit it, and the writer aggregates, writes and reuses its
/// buffers round after round. No file spans two rounds, so the bytes written do not depend on the
/// rounds. A round is a contiguous range of files, or one range per aggregator: a fine level's
/// files are regions of the domain in Z order, so a contiguous round of them holds the samples of
/// a few ranks only (the others would wait at its fences); a round that takes a part of every
/// aggregator's share of the level holds samples of every rank's box instead.
#pragma once

#include <cstdint>
#include <vector>

#include "hzio/format/idx_header.h"
#include "hzio/access/aggregation_plan.h"

namespace hzio::mpi {

class FileAggregation {
 public:
  /// `requested` aggregators (0 = one per rank) are clamped to the ranks and the unit count.
  /// `files`: the files [begin, end) of the timestep this plan covers (a round); end < 0 = all.
  FileAggregation(const IdxHeader& header, int64_t requested, int ranks, Span files = Span{0, -1});
  /// A round as Rounds() gives it: one range (as above), or one range of whole files per
  /// aggregator (ascending, disjoint, none empty): aggregator a then holds `files[a]`.
  FileAggregation(const IdxHeader& header, int64_t requested, int ranks, const std::vector<Span>& files);

  /// The rounds of a timestep under a memory budget, in order, covering every file once, such that
  /// no aggregator's buffer exceeds `budget_bytes` (one file per round at least: a file larger
  /// than the budget times the aggregators still takes one round). One round when the whole
  /// timestep fits. Each round is one contiguous file range, or one range per aggregator where a
  /// level's files take several rounds of whole files: each aggregator's share of the level (a
  /// contiguous range, as in one round) is then cut into as many parts, and round r holds every
  /// aggregator's part r.
  static std::vector<std::vector<Span>> Rounds(const IdxHeader& header, int64_t requested, int ranks,
                                               int64_t budget_bytes);
  /// The bytes one whole file takes in the aggregators' buffers (every block, every field).
  static int64_t FileBufferBytes(const IdxHeader& header);
  /// The blocks per file of a parallel write whose caller left (blocksperfile) to its default: the
  /// header's (validated: §2.3, 128 MiB of uncompressed blocks per file), cut to a power of two so
  /// that there are at least as many files per timestep as `aggregators`. Each aggregator then
  /// writes whole files of its own, side by side, instead of the ranks of a node queueing on one
  /// shared file (a file system serialises the writes into one file).
  static int64_t DefaultBlocksPerFile(const IdxHeader& header, int64_t aggregators);
  /// The largest aggregator buffer of this plan.
  int64_t MaxBufferBytes() const;

  int64_t aggregators() const { return aggregators_; }
  int64_t num_files() const { return files_; }  // of this plan's round
  int ranks() const { return ranks_; }
  int Rank(int64_t aggregator) const { return AggregatorRank(aggregator, aggregators_, ranks_); }
  int64_t blocks_per_file() const { return bpf_; }
  int64_t total_blocks() const { return total_blocks_; }
  /// log2 of the samples per unit, and units per block (1: units are blocks).
  int unit_bits() const { return unit_bits_; }
  int64_t units_per_block() const { return units_per_block_; }
  /// Whether aggregators own whole files (no file is shared; units are then blocks).
  bool whole_files() const { return aggregators_ <= files_; }
  /// Whether every field is raw: payloads have fixed sizes, so every byte's place in a file follows
  /// from the geometry alone.
  bool raw() const { return raw_; }
  /// Units [begin, end) of an aggregator (unit u holds hz [u, u+1) * 2^unit_bits()), absolute.
  Span Units(int64_t aggregator) const;
  /// The round's hz ranges in units, ascending: the aggregators' units, adjacent ones merged.
  std::vector<Span> RoundUnits() const;
  /// Blocks [begin, end) that an aggregator's units belong to (the first and last may be shared).
  Span Blocks(int64_t aggregator) const;
  /// Files [begin, end) touched by an aggregator's blocks (file index = block / bpf).
  Span Files(int64_t aggregator) const;
  /// Blocks [begin, end) of file `file` (the last file may be cut by the block count).
  Span FileBlocks(int64_t file) const;
  /// The aggregator holding `unit`, one of this round's.
  int64_t AggregatorOfUnit(uint64_t unit) const;
  /// Byte offset of field f's region in an aggregator's buffer, and the buffer size.
  int64_t FieldBase(int64_t aggregator, int field) const;
  int64_t BufferBytes(int64_t aggregator) const { return FieldBase(aggregator, static_cast<int>(unit_bytes_.size())); }
  int64_t block_bytes(int field) const { return unit_bytes(field) * units_per_block_; }
  int64_t unit_bytes(int field) const { return unit_bytes_[static_cast<size_t>(field)]; }

 private:
  int ranks_;
  int64_t bpf_, total_blocks_, files_ = 0, aggregators_;
  int unit_bits_;
  bool raw_;
  int64_t units_per_block_, unit0_ = 0, total_units_;  // shared files: the range's first unit and unit count
  std::vector<Span> aggregator_files_;  // whole files: each aggregator's
  std::vector<int64_t> unit_bytes_;     // per field
};

}  // namespace hzio::mpi
