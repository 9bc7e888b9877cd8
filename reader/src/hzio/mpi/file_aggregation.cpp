#include "hzio/mpi/file_aggregation.h"

#include <algorithm>
#include <bit>

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

FileAggregation::FileAggregation(const IdxHeader& header, int64_t requested, int ranks, Span files)
    : ranks_(ranks),
      bpf_(header.blocks_per_file),
      total_blocks_(static_cast<int64_t>(header.total_blocks())),
      unit_bits_(header.bits_per_block),
      raw_(std::all_of(header.fields.begin(), header.fields.end(), StoresRawBlocks)) {
  Check(header.interleave <= 1, ErrorCode::kUnsupported,
        "the parallel writer needs (interleave block) 0, not " + std::to_string(header.interleave));
  Check(requested >= 0, ErrorCode::kInvalidArgument, "--aggregators must be >= 0");
  const int64_t all_files = (total_blocks_ + bpf_ - 1) / bpf_;
  if (files.end < 0) files = Span{0, all_files};
  Check(files.begin >= 0 && files.begin < files.end && files.end <= all_files, ErrorCode::kInternal,
        "aggregation round of files [" + std::to_string(files.begin) + ", " + std::to_string(files.end) + ") outside 0.." +
            std::to_string(all_files));
  file0_ = files.begin;
  files_ = files.size();
  const int64_t first_block = file0_ * bpf_, blocks = std::min(files.end * bpf_, total_blocks_) - first_block;
  const int64_t wanted = std::min<int64_t>(requested == 0 ? ranks : requested, ranks);
  // Compressed blocks are encoded whole, so only raw datasets are cut finer than blocks.
  if (raw_)
    while ((blocks << (header.bits_per_block - unit_bits_)) < wanted && unit_bits_ > kMinUnitBits) --unit_bits_;
  units_per_block_ = int64_t{1} << (header.bits_per_block - unit_bits_);
  unit0_ = first_block * units_per_block_;
  total_units_ = blocks * units_per_block_;
  aggregators_ = std::clamp<int64_t>(wanted, 1, total_units_);
  for (const Field& f : header.fields) unit_bytes_.push_back(f.dtype.BytesFor(int64_t{1} << unit_bits_));
}

std::vector<Span> FileAggregation::Rounds(const IdxHeader& header, int64_t requested, int ranks, int64_t budget_bytes) {
  const FileAggregation whole(header, requested, ranks);
  if (whole.MaxBufferBytes() <= budget_bytes) return {Span{0, whole.num_files()}};
  const int64_t file_bytes = FileBufferBytes(header);
  // Whole files per aggregator that fit, times the aggregators; a round is at least one file
  // (then shared by the aggregators, each holding about 1/aggregators of it).
  const int64_t per_round = std::max<int64_t>(1, budget_bytes / file_bytes * whole.aggregators());
  std::vector<Span> rounds;
  for (int64_t f = 0; f < whole.num_files(); f += per_round)
    rounds.push_back(Span{f, std::min(whole.num_files(), f + per_round)});
  return rounds;
}

int64_t FileAggregation::FileBufferBytes(const IdxHeader& header) {
  int64_t bytes = 0;
  for (const Field& f : header.fields) bytes += f.dtype.BytesFor(int64_t{1} << header.bits_per_block);
  return bytes * header.blocks_per_file;
}

int64_t FileAggregation::DefaultBlocksPerFile(const IdxHeader& header, int64_t aggregators) {
  const uint64_t per_aggregator = header.total_blocks() / static_cast<uint64_t>(std::max<int64_t>(1, aggregators));
  return std::min(static_cast<int64_t>(std::bit_floor(std::max<uint64_t>(1, per_aggregator))),
                  std::max<int64_t>(1, header.blocks_per_file));
}

int64_t FileAggregation::MaxBufferBytes() const {
  int64_t bytes = 0;
  for (int64_t a = 0; a < aggregators_; ++a) bytes = std::max(bytes, BufferBytes(a));
  return bytes;
}

Span FileAggregation::Units(int64_t aggregator) const {
  if (!whole_files()) {
    const Span u = EvenSplit(total_units_, aggregators_, aggregator);
    return Span{unit0_ + u.begin, unit0_ + u.end};
  }
  const Span f = EvenSplit(files_, aggregators_, aggregator);
  return Span{(file0_ + f.begin) * bpf_ * units_per_block_,
              std::min((file0_ + f.end) * bpf_, total_blocks_) * units_per_block_};
}

Span FileAggregation::Blocks(int64_t aggregator) const {
  const Span u = Units(aggregator);
  return Span{u.begin / units_per_block_, (u.end + units_per_block_ - 1) / units_per_block_};
}

Span FileAggregation::Files(int64_t aggregator) const {
  const Span b = Blocks(aggregator);
  return Span{b.begin / bpf_, b.size() > 0 ? (b.end - 1) / bpf_ + 1 : b.begin / bpf_};
}

Span FileAggregation::FileBlocks(int64_t file) const {
  return Span{file * bpf_, std::min((file + 1) * bpf_, total_blocks_)};
}

int64_t FileAggregation::AggregatorOfUnit(uint64_t unit) const {
  if (!whole_files()) return EvenSplitOwner(total_units_, aggregators_, static_cast<int64_t>(unit) - unit0_);
  return EvenSplitOwner(files_, aggregators_, static_cast<int64_t>(unit) / units_per_block_ / bpf_ - file0_);
}

int64_t FileAggregation::FieldBase(int64_t aggregator, int field) const {
  const int64_t n = Units(aggregator).size();
  int64_t base = 0;
  for (int f = 0; f < field; ++f) base += n * unit_bytes_[static_cast<size_t>(f)];
  return base;
}

}  // namespace hzio::mpi
