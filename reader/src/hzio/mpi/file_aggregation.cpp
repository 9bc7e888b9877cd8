#include "hzio/mpi/file_aggregation.h"

#include <algorithm>

#include "hzio/util/error.h"

namespace hzio::mpi {

FileAggregation::FileAggregation(const IdxHeader& header, int64_t requested, int ranks)
    : ranks_(ranks),
      bpf_(header.blocks_per_file),
      total_blocks_(static_cast<int64_t>(header.total_blocks())) {
  Check(header.interleave <= 1, ErrorCode::kUnsupported,
        "the parallel writer needs (interleave block) 0, not " + std::to_string(header.interleave));
  Check(requested >= 0, ErrorCode::kInvalidArgument, "--aggregators must be >= 0");
  files_ = (total_blocks_ + bpf_ - 1) / bpf_;
  aggregators_ = std::clamp<int64_t>(requested == 0 ? ranks : requested, 1, std::min<int64_t>(ranks, total_blocks_));
  for (const Field& f : header.fields) block_bytes_.push_back(f.dtype.BytesFor(int64_t{1} << header.bits_per_block));
}

Span FileAggregation::Blocks(int64_t aggregator) const {
  if (!whole_files()) return EvenSplit(total_blocks_, aggregators_, aggregator);
  const Span f = EvenSplit(files_, aggregators_, aggregator);
  return Span{f.begin * bpf_, std::min(f.end * bpf_, total_blocks_)};
}

Span FileAggregation::Files(int64_t aggregator) const {
  const Span b = Blocks(aggregator);
  return Span{b.begin / bpf_, b.size() > 0 ? (b.end - 1) / bpf_ + 1 : b.begin / bpf_};
}

Span FileAggregation::FileBlocks(int64_t file) const {
  return Span{file * bpf_, std::min((file + 1) * bpf_, total_blocks_)};
}

int64_t FileAggregation::AggregatorOfBlock(uint64_t block) const {
  if (!whole_files()) return EvenSplitOwner(total_blocks_, aggregators_, static_cast<int64_t>(block));
  return EvenSplitOwner(files_, aggregators_, static_cast<int64_t>(block) / bpf_);
}

int64_t FileAggregation::FieldBase(int64_t aggregator, int field) const {
  const int64_t n = Blocks(aggregator).size();
  int64_t base = 0;
  for (int f = 0; f < field; ++f) base += n * block_bytes_[static_cast<size_t>(f)];
  return base;
}

}  // namespace hzio::mpi
