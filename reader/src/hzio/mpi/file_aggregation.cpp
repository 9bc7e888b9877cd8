#include "hzio/mpi/file_aggregation.h"

#include <algorithm>
#include <bit>

#include "hzio/codec/codec.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

namespace {

// The files [first of the first range, end of the last) (an empty span for no ranges).
Span Hull(const std::vector<Span>& ranges) {
  return ranges.empty() ? Span{} : Span{ranges.front().begin, ranges.back().end};
}

// For each HZ level that fills several files (level L holds hz [2^(L-1), 2^L)), its files,
// ascending. Levels that do not start on a file boundary (a file size that is no power of two)
// have none.
std::vector<Span> LevelFiles(const IdxHeader& header, int64_t files) {
  const uint64_t bpf = static_cast<uint64_t>(header.blocks_per_file);
  if (bpf == 0 || bpf > (~uint64_t{0} >> (header.bits_per_block + 1))) return {};
  const uint64_t file_samples = bpf << header.bits_per_block;
  std::vector<Span> levels;
  for (int level = 1; level <= header.bitmask.maxh(); ++level) {
    const uint64_t begin = uint64_t{1} << (level - 1), size = begin;
    if (begin % file_samples != 0 || size < 2 * file_samples) continue;
    levels.push_back(Span{static_cast<int64_t>(begin / file_samples),
                          std::min(files, static_cast<int64_t>((begin + size) / file_samples))});
  }
  return levels;
}

}  // namespace

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
  files_ = files.size();
  const int64_t first_block = files.begin * bpf_, blocks = std::min(files.end * bpf_, total_blocks_) - first_block;
  const int64_t wanted = std::min<int64_t>(requested == 0 ? ranks : requested, ranks);
  // Compressed blocks are encoded whole, so only raw datasets are cut finer than blocks.
  if (raw_)
    while ((blocks << (header.bits_per_block - unit_bits_)) < wanted && unit_bits_ > kMinUnitBits) --unit_bits_;
  units_per_block_ = int64_t{1} << (header.bits_per_block - unit_bits_);
  unit0_ = first_block * units_per_block_;
  total_units_ = blocks * units_per_block_;
  aggregators_ = std::clamp<int64_t>(wanted, 1, total_units_);
  if (whole_files())
    for (int64_t a = 0; a < aggregators_; ++a) {
      const Span f = EvenSplit(files_, aggregators_, a);
      aggregator_files_.push_back(Span{files.begin + f.begin, files.begin + f.end});
    }
  for (const Field& f : header.fields) unit_bytes_.push_back(f.dtype.BytesFor(int64_t{1} << unit_bits_));
}

FileAggregation::FileAggregation(const IdxHeader& header, int64_t requested, int ranks, const std::vector<Span>& files)
    : FileAggregation(header, requested, ranks, Hull(files)) {
  if (files.size() == 1) return;  // a contiguous round
  Check(static_cast<int64_t>(files.size()) == aggregators_, ErrorCode::kInternal,
        "aggregation round of " + std::to_string(files.size()) + " file ranges for " + std::to_string(aggregators_) +
            " aggregators");
  int64_t count = 0, end = 0;
  for (const Span& f : files) {
    Check(f.begin >= end && f.size() > 0, ErrorCode::kInternal,
          "aggregation round: file ranges must be ascending, disjoint and not empty");
    end = f.end;
    count += f.size();
  }
  files_ = count;
  aggregator_files_ = files;
}

std::vector<std::vector<Span>> FileAggregation::Rounds(const IdxHeader& header, int64_t requested, int ranks,
                                                       int64_t budget_bytes) {
  const FileAggregation whole(header, requested, ranks);
  const int64_t files = whole.num_files(), aggregators = whole.aggregators();
  if (whole.MaxBufferBytes() <= budget_bytes) return {{Span{0, files}}};
  // Whole files per aggregator that fit, times the aggregators; a round is at least one file
  // (then shared by the aggregators, each holding about 1/aggregators of it).
  const int64_t per_aggregator = budget_bytes / FileBufferBytes(header);
  const int64_t per_round = std::max<int64_t>(1, per_aggregator * aggregators);
  std::vector<std::vector<Span>> rounds;
  int64_t next = 0;  // the first file in no round yet
  const auto contiguous_until = [&](int64_t end) {
    for (; next < end; next = std::min(end, next + per_round)) rounds.push_back({Span{next, std::min(end, next + per_round)}});
  };
  // A level whose files take several rounds of whole files: every round takes a part of each
  // aggregator's share of it (the regions of the domain its files hold in Z order spread over
  // every rank's box), not the next files in order (the regions of a few ranks).
  if (per_aggregator >= 1 && aggregators > 1 && whole.whole_files())
    for (const Span level : LevelFiles(header, files)) {
      const int64_t share = level.size() / aggregators;
      if (level.size() % aggregators != 0 || share <= per_aggregator) continue;
      contiguous_until(level.begin);
      const int64_t parts = (share + per_aggregator - 1) / per_aggregator;
      for (int64_t r = 0; r < parts; ++r) {
        const Span part = EvenSplit(share, parts, r);
        std::vector<Span> round;
        for (int64_t a = 0; a < aggregators; ++a)
          round.push_back(Span{level.begin + a * share + part.begin, level.begin + a * share + part.end});
        rounds.push_back(std::move(round));
      }
      next = level.end;
    }
  contiguous_until(files);
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
  const Span f = aggregator_files_[static_cast<size_t>(aggregator)];
  return Span{f.begin * bpf_ * units_per_block_, std::min(f.end * bpf_, total_blocks_) * units_per_block_};
}

std::vector<Span> FileAggregation::RoundUnits() const {
  std::vector<Span> ranges;
  for (int64_t a = 0; a < aggregators_; ++a) AppendMerged(ranges, Units(a));
  return ranges;
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
  const int64_t file = static_cast<int64_t>(unit) / units_per_block_ / bpf_;
  const auto after = std::upper_bound(aggregator_files_.begin(), aggregator_files_.end(), file,
                                      [](int64_t f, const Span& s) { return f < s.begin; });
  return (after - aggregator_files_.begin()) - 1;
}

int64_t FileAggregation::FieldBase(int64_t aggregator, int field) const {
  const int64_t n = Units(aggregator).size();
  int64_t base = 0;
  for (int f = 0; f < field; ++f) base += n * unit_bytes_[static_cast<size_t>(f)];
  return base;
}

}  // namespace hzio::mpi
