#include "hzio/mpi/parallel_reader.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "hzio/access/dataset_paths.h"
#include "hzio/format/block_files.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/util/box_copy.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/node_share.h"
#include "hzio/util/buffer_pool.h"
#include "hzio/util/stream_copy.h"

namespace hzio::mpi {

ParallelReader::ParallelReader(MPI_Comm comm, std::string idx_path, ReadOptions options)
    : comm_(comm), idx_path_(std::move(idx_path)), options_(options), rank_(CommRank(comm)), ranks_(CommSize(comm)) {
  // Rank 0 reads the .idx and broadcasts it (a usual header costs one broadcast). Every rank then
  // parses the same text: a malformed header throws the same Error everywhere without agreement.
  std::string text;
  std::exception_ptr error;
  if (CommRank(comm_) == 0) {
    try {
      std::ifstream in(idx_path_, std::ios::binary);
      Check(static_cast<bool>(in), ErrorCode::kNotFound, "cannot open dataset " + idx_path_);
      std::ostringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    } catch (...) {
      error = std::current_exception();
    }
  }
  text = BroadcastText(comm_, text, error);
  header_ = IdxHeader::Parse(text, idx_path_, IdxStemOf(idx_path_));
  layout_ = std::make_shared<BlockLayout>(header_.bitmask, header_.bits_per_block);
  const NodeShare node = ThisNode(comm_);
  default_budget_ = AggregationWindow::DefaultBudget(node.ranks);
  // An option out of range is refused inside a read, where errors are agreed on.
  placing_threads_ = ThreadsFor(options_.placing_threads, node);
  cpus_short_ = node.ShortOfCpus();
  piece_bytes_ = PieceBytesFor(node.ranks);
  try {
    idx_identity_ = StatIdentity(idx_path_);
  } catch (const Error&) {
    // Unreadable here: Blocks() reports it (inside a read, where errors are agreed on).
  }
}

ClassicBlockSource& ParallelReader::Blocks() {
  if (!blocks_) {
    ClassicBlockSource::Options serial;
    serial.threads = 1;
    // One thread reading each file in order: the kernel's own sequential read-ahead streams it
    // (fadvise WILLNEED windows ahead of it made cold reads 30% slower here, RESULTS.md).
    serial.read_ahead_bytes = 0;
    auto header = std::make_shared<const IdxHeader>(header_);
    if (header_.pidx_chunking) {  // the files hold chunk records; blocks_ reads them as stored
      chunks_ = OpenPidxChunkBlocks(header, layout_, idx_path_, idx_identity_, serial);
      blocks_ = std::static_pointer_cast<ClassicBlockSource>(chunks_->stored());
    } else {
      blocks_ = std::make_shared<ClassicBlockSource>(header, layout_, idx_path_, idx_identity_, serial);
    }
  }
  return *blocks_;
}

bool ParallelReader::HasSamples(const Box& box, int level) const {
  if (box.dims() != header_.dims()) return false;
  const Box c = box.Intersect(header_.box);
  if (c.Empty()) return false;
  const Point stride = header_.bitmask.CumulativeStride(level < 0 ? header_.maxh() : level);
  for (int d = 0; d < c.dims(); ++d) {
    const int64_t first = (c.p1[d] + stride[d] - 1) / stride[d] * stride[d];  // §3.4: multiples of D_level
    if (first >= c.p2[d]) return false;
  }
  return true;
}

Grid ParallelReader::ResultGrid(const Box& box, int level) const {
  return layout_->QueryGrid(box.Intersect(header_.box), LevelRange{0, level < 0 ? header_.maxh() : level});
}

std::vector<BoxData> ParallelReader::Read(int field, int64_t time, int level, const std::vector<Box>& boxes) {
  return std::move(Read(std::vector<int>{field}, time, level, boxes).front());
}

std::vector<std::vector<BoxData>> ParallelReader::Read(const std::vector<int>& fields, int64_t time, int level,
                                                       const std::vector<Box>& boxes) {
  std::vector<std::vector<BoxData>> results(fields.size());
  std::vector<std::vector<uint8_t*>> out(fields.size());
  Collectively(comm_, [&] {
    for (size_t k = 0; k < fields.size(); ++k) {
      const int field = fields[k];
      Check(field >= 0 && field < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
            "field index " + std::to_string(field) + " outside 0.." + std::to_string(header_.fields.size() - 1));
      for (const Box& b : boxes) {
        Check(b.dims() == header_.dims() && !b.Intersect(header_.box).Empty(), ErrorCode::kOutOfRange,
              "box " + b.ToRangesString() + " does not intersect the dataset box " + header_.box.ToRangesString());
        BoxData r;
        r.grid = ResultGrid(b, level);
        r.bytes.resize(static_cast<size_t>(header_.fields[static_cast<size_t>(field)].dtype.BytesFor(r.grid.NumSamples())));
        results[k].push_back(std::move(r));
      }
    }
  });
  for (size_t k = 0; k < fields.size(); ++k)
    for (BoxData& r : results[k]) out[k].push_back(r.bytes.data());
  ReadInto(fields, time, level, boxes, out);
  return results;
}

void ParallelReader::ReadInto(int field, int64_t time, int level, const std::vector<Box>& boxes,
                              const std::vector<uint8_t*>& out) {
  ReadInto(std::vector<int>{field}, time, level, boxes, std::vector<std::vector<uint8_t*>>{out});
}

void ParallelReader::ReadInto(const std::vector<int>& fields, int64_t time, int level, const std::vector<Box>& boxes,
                              const std::vector<std::vector<uint8_t*>>& out) {
  const double t_start = MPI_Wtime();
  stats_ = IoStats{};
  if (level < 0) level = header_.maxh();
  const int dims = header_.dims();
  std::vector<Box> clipped;
  std::vector<std::vector<Target>> targets(fields.size());
  int64_t local_bytes = 0;
  // Local checks, then one agreement that also reduces the region all requests lie in.
  std::exception_ptr input_error;
  int64_t budget = default_budget_;
  Point lo(dims, std::numeric_limits<int64_t>::max()), hi(dims, std::numeric_limits<int64_t>::min());
  try {
    Check(!fields.empty() && out.size() == fields.size(), ErrorCode::kInvalidArgument,
          std::to_string(fields.size()) + " fields but " + std::to_string(out.size()) + " output lists");
    CheckThreadsOption(options_.placing_threads, "placing_threads");
    for (const int field : fields)
      Check(field >= 0 && field < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
            "field index " + std::to_string(field) + " outside 0.." + std::to_string(header_.fields.size() - 1));
    Check(header_.time.Contains(time), ErrorCode::kNotFound,
          "timestep " + std::to_string(time) + " is not declared in " + idx_path_);
    Check(level <= header_.maxh(), ErrorCode::kOutOfRange,
          "level " + std::to_string(level) + " is outside 0.." + std::to_string(header_.maxh()));
    for (size_t k = 0; k < fields.size(); ++k)
      Check(out[k].size() == boxes.size(), ErrorCode::kInvalidArgument,
            std::to_string(boxes.size()) + " boxes but " + std::to_string(out[k].size()) + " output buffers");
    for (size_t i = 0; i < boxes.size(); ++i) {
      const Box& b = boxes[i];
      Check(b.dims() == header_.dims(), ErrorCode::kInvalidArgument,
            "box " + b.ToRangesString() + " has " + std::to_string(b.dims()) + " axes, the dataset " +
                std::to_string(header_.dims()));
      const Box c = b.Intersect(header_.box);
      Check(!c.Empty(), ErrorCode::kOutOfRange,
            "box " + b.ToRangesString() + " lies outside the dataset box " + header_.box.ToRangesString());
      // No fill: every result sample lies in some block touching the dataset box, and both modes
      // copy it from that block as ReadBlocks left it (decoded, or default_value if absent, §4.9).
      const Grid grid = layout_->QueryGrid(c, LevelRange{0, level});
      for (size_t k = 0; k < fields.size(); ++k) {
        Check(out[k][i] != nullptr, ErrorCode::kInvalidArgument, "no output buffer for box " + b.ToRangesString());
        targets[k].push_back(Target{grid, out[k][i]});
        local_bytes += header_.fields[static_cast<size_t>(fields[k])].dtype.BytesFor(grid.NumSamples());
      }
      clipped.push_back(c);
      for (int d = 0; d < dims; ++d) {
        lo[d] = std::min(lo[d], c.p1[d]);
        hi[d] = std::max(hi[d], c.p2[d]);
      }
    }
    budget = AggregationWindow::ChooseBudget(options_.memory_budget, default_budget_);
  } catch (...) {
    input_error = std::current_exception();
  }
  std::vector<int64_t> corners;  // maxima of -lo and hi, CPUs short, no-owner-reads, the owner-read minimum, no-overlap, -budget
  for (int d = 0; d < dims; ++d) corners.push_back(lo[d] == std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::min() : -lo[d]);
  for (int d = 0; d < dims; ++d) corners.push_back(hi[d]);
  corners.push_back(cpus_short_ ? 1 : 0);  // any node short of CPUs holds for all
  corners.push_back(options_.owner_reads ? 0 : 1);  // any rank that asks for no owner reads turns them off
  corners.push_back(std::max<int64_t>(0, options_.owner_reads_min_bytes));  // the largest of any rank holds for all
  corners.push_back(options_.overlap ? 0 : 1);  // any rank that asks for no overlap gets none
  corners.push_back(-budget);
  corners = AgreeAndMax(comm_, std::move(corners), input_error);
  TwoPhaseChoices choices;
  choices.budget = -corners.back();  // the smallest of any rank holds for all
  choices.overlap = corners[corners.size() - 2] == 0;
  choices.owner_min_bytes = corners[corners.size() - 3];
  choices.owner_reads = corners[corners.size() - 4] == 0;
  choices.cpus_short = corners[corners.size() - 5] != 0;
  Box region{Point(dims), Point(dims)};
  for (int d = 0; d < dims; ++d) {
    region.p1[d] = corners[static_cast<size_t>(d)] == std::numeric_limits<int64_t>::min() ? 0 : -corners[static_cast<size_t>(d)];
    region.p2[d] = corners[static_cast<size_t>(dims + d)] == std::numeric_limits<int64_t>::min() ? 0 : corners[static_cast<size_t>(dims + d)];
  }

  std::exception_ptr error;
  const int ranks = CommSize(comm_);
  // Blocks that are not byte ranges of shared block files have no file ranges to aggregate: a PIDX
  // chunked dataset builds them from chunk records of other blocks, and an ARCO dataset keeps each
  // in a file of its own (idx-format.md §4.12). Every rank then reads the blocks of its own boxes.
  const bool chunked = header_.pidx_chunking.has_value(), arco = header_.arco > 0;
  // This rank's results, when larger than the caches, are placed with streaming stores: a normal
  // store first reads the line it fills, and nobody reads these samples before the read returns.
  choices.stream = local_bytes >= kStreamResultBytes;
  if (options_.mode == ReadMode::kTwoPhase && !chunked && !arco)
    error = ReadTwoPhase(fields, time, level, region, clipped, targets, choices);
  else
    error = ReadOnePhase(fields, time, level, clipped, targets);
  if (options_.mode == ReadMode::kTwoPhase && ranks > 1 && chunked)
    stats_.note = "PIDX chunked dataset: read one-phase (its blocks are built from chunk records of other blocks)";
  if (options_.mode == ReadMode::kTwoPhase && ranks > 1 && arco)
    stats_.note = "ARCO dataset: read one-phase (one file per block: each rank reads the files of its own blocks)";

  const int64_t aggregators = stats_.aggregators;
  const bool two_phase = options_.mode == ReadMode::kTwoPhase && !chunked && !arco;
  FinishStats(
      comm_, stats_, MPI_Wtime() - t_start, local_bytes, stats_.file_bytes,
      [&](int64_t a) { return two_phase ? AggregatorRank(a, aggregators, ranks) : static_cast<int>(a); }, error);
}

// The serial engine reads each of this rank's boxes of one field straight into its target.
void ParallelReader::ReadBoxesOnePhase(int field, int64_t time, int level, const std::vector<Box>& clipped,
                                       std::vector<Target>& targets) {
  for (size_t bi = 0; bi < clipped.size(); ++bi) {
    const Dataset::Resolved query{field, time, clipped[bi], LevelRange{0, level}, targets[bi].grid};
    local_->ReadInto(query, targets[bi].data);
  }
}

std::exception_ptr ParallelReader::ReadOnePhase(const std::vector<int>& fields, int64_t time, int level,
                                                const std::vector<Box>& clipped,
                                                std::vector<std::vector<Target>>& results) {
  // Every rank reads its own boxes with hzio::core's serial engine: only the blocks they touch,
  // scattered into the boxes through the hz tables, so only the samples a box holds are moved (a
  // rank's box meets every fine block of a dataset, whose whole permutation would be most of the
  // work). One thread: the ranks are the parallelism.
  stats_.aggregators = CommSize(comm_);  // every rank reads for itself
  std::exception_ptr error;
  try {
    const double t0 = MPI_Wtime();
    if (!local_) {
      OpenOptions open;
      open.threads = 1;
      open.max_query_bytes = std::numeric_limits<int64_t>::max();  // the caller's memory holds the result
      if (header_.arco > 0) {
        ArcoBlockSource::Options serial;
        serial.threads = 1;
        arco_ = std::make_shared<ArcoBlockSource>(std::make_shared<const IdxHeader>(header_), layout_, idx_path_,
                                                  idx_identity_, serial);
        local_ = std::make_unique<Dataset>(arco_, idx_path_, open);
      } else {
        Blocks();
        local_ = chunks_ ? std::make_unique<Dataset>(chunks_, idx_path_, open)
                         : std::make_unique<Dataset>(blocks_, idx_path_, open);
      }
    }
    std::vector<uint64_t> blocks;  // the same for every field
    for (const Box& b : clipped) {
      const std::vector<uint64_t> touched = BoxBlocks(header_, *layout_, b, level);
      blocks.insert(blocks.end(), touched.begin(), touched.end());
    }
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    for (size_t k = 0; k < fields.size(); ++k) {
      if (arco_) {  // an absent block file is ARCO's missing block (§4.12): nothing to check first
        ReadBoxesOnePhase(fields[k], time, level, clipped, results[k]);
        continue;
      }
      const Field& f = header_.fields[static_cast<size_t>(fields[k])];
      std::vector<uint64_t> stored;  // the blocks in the files: of a chunked dataset, those of its records
      if (chunks_) {
        for (const uint64_t id : blocks) {
          const std::vector<uint64_t> records = chunks_->StoredBlocks(fields[k], id);
          stored.insert(stored.end(), records.begin(), records.end());
        }
        std::sort(stored.begin(), stored.end());
        stored.erase(std::unique(stored.begin(), stored.end()), stored.end());
      }
      std::shared_ptr<const ClassicBlockSource::FileTable> table;  // of the file of the last block
      for (const uint64_t id : chunks_ ? stored : blocks) {  // what is read, and files that must exist
        const std::string path = blocks_->files().FilePath(id, time);
        if (!table || table->path != path) table = blocks_->Table(path);
        Check(table->file != nullptr || !options_.missing_files_are_errors, ErrorCode::kNotFound,
              "block file " + path + " is missing (it should hold block " + std::to_string(id) + " of field '" +
                  f.name + "', timestep " + std::to_string(time) + ")");
        if (table->file) stats_.file_bytes += static_cast<int64_t>(blocks_->Entry(*table, fields[k], id).size);
      }
      ReadBoxesOnePhase(fields[k], time, level, clipped, results[k]);
    }
    stats_.local_aggregator_bytes = stats_.file_bytes;
    stats_.local.io += MPI_Wtime() - t0;  // reading and placing are one pass here
  } catch (...) {
    error = std::current_exception();
  }
  return error;
}

}  // namespace hzio::mpi
