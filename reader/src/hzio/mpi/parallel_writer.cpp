#include "hzio/mpi/parallel_writer.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>

#include "hzio/access/dataset_paths.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/codec/codec.h"
#include "hzio/format/block_files.h"
#include "hzio/format/pidx_output.h"
#include "hzio/mpi/aggregation_window.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/node_share.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/write_rounds.h"
#include "hzio/util/strings.h"

namespace hzio::mpi {

namespace {

// The registered (timestep, field) parts are agreed as one flag each when there are at most this
// many declared (the flags ride in the start-up agreement), else gathered.
constexpr size_t kMaxPartFlags = 4096;

// FNV-1a: a stable hash of the header text (the same on every rank and build).
uint64_t HeaderHash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (const char c : text) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

// Memory no longer limits what a write may attempt (rounds), so a raw dataset whose samples alone
// exceed the free space of its file system is refused before any file is written: a typo in the
// dimensions must not fill the disk. (Every sample of the box is stored at least once; padding and
// tables add to that. Compressed sizes are unknown in advance.)
void CheckDiskRoom(const IdxHeader& header, const std::string& idx_path) {
  int64_t sample_bytes = 0;
  for (const Field& f : header.fields) {
    if (CodecSpec::Parse(f.compression).codec != Codec::kRaw) return;
    sample_bytes += f.dtype.SampleBytes();
  }
  const long double need = static_cast<long double>(header.box.Size().Product()) * sample_bytes;
  std::filesystem::path dir = std::filesystem::absolute(IdxDirectory(idx_path));
  std::error_code ec;
  while (!std::filesystem::exists(dir, ec) && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
  const std::filesystem::space_info space = std::filesystem::space(dir, ec);
  if (ec) return;  // unknown: the writes report what goes wrong
  Check(need <= static_cast<long double>(space.available), ErrorCode::kTooLarge,
        "writing " + idx_path + " needs at least " + std::to_string(static_cast<double>(need)) +
            " bytes of disk (the samples of the dataset box " + header.box.ToRangesString() + "), but " +
            dir.string() + " has " + std::to_string(space.available) + " bytes free");
}

}  // namespace

ParallelWriter::ParallelWriter(MPI_Comm comm, std::string idx_path, IdxHeader header, WriteOptions options)
    : comm_(comm), idx_path_(std::move(idx_path)), header_(std::move(header)), options_(options) {
  header_.Validate(IdxStemOf(idx_path_));
  if (options_.pidx_compatible) {
    try {
      MakePidxReadable(header_, IdxStemOf(idx_path_));
    } catch (const Error& e) {
      throw Error(e.code(), idx_path_ + ": " + e.what());
    }
  }
}

void ParallelWriter::Add(int field, int64_t time, const Box& box, const uint8_t* data) {
  registered_.push_back(Registered{time, Piece{field, box, data}});
}

std::vector<std::pair<int64_t, int>> ParallelWriter::RegisteredParts() const {
  // Every rank's distinct parts, gathered (each rank's list is short), sorted.
  const int ranks = CommSize(comm_);
  std::vector<std::pair<int64_t, int>> mine;
  for (const Registered& r : registered_) mine.emplace_back(r.time, r.piece.field);
  std::sort(mine.begin(), mine.end());
  mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  std::vector<int64_t> local;
  for (const auto& [time, field] : mine) local.insert(local.end(), {time, field});
  int count = CheckedInt(static_cast<int64_t>(local.size()), "registered parts");
  std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  MpiCheck(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "MPI_Allgather(parts)");
  int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    displs[static_cast<size_t>(r)] = CheckedInt(total, "registered parts");
    total += counts[static_cast<size_t>(r)];
  }
  std::vector<int64_t> all(static_cast<size_t>(total));
  MpiCheck(MPI_Allgatherv(local.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T,
                          comm_),
           "MPI_Allgatherv(parts)");
  std::vector<std::pair<int64_t, int>> parts;
  for (size_t i = 0; i + 1 < all.size(); i += 2) parts.emplace_back(all[i], static_cast<int>(all[i + 1]));
  std::sort(parts.begin(), parts.end());
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  return parts;
}

// What every rank agreed on before any file is written.
struct ParallelWriter::Agreement {
  int64_t budget = 0;                          // aggregator bytes per rank (the smallest of any rank)
  Point extent;                                // the largest box extent of any rank
  std::vector<std::pair<int64_t, int>> parts;  // (time, field) any rank registered, sorted
  std::vector<int64_t> times;                  // their timesteps, sorted
  int64_t local_data_bytes = 0;                // this rank's sample bytes
  int threads = 1;                             // this rank's encoding threads (WriteOptions::encoding_threads)
  int fewest_cpus = 1;                         // the fewest CPUs any rank has to itself (node_share.h)
};

ParallelWriter::Agreement ParallelWriter::AgreeOnInput() const {
  const int nfields = static_cast<int>(header_.fields.size());
  const int dims = header_.dims();
  std::vector<int64_t> declared = header_.time.List(kMaxPartFlags + 1);
  std::sort(declared.begin(), declared.end());
  declared.erase(std::unique(declared.begin(), declared.end()), declared.end());
  const bool part_flags = !header_.time.any && declared.size() * static_cast<size_t>(nfields) <= kMaxPartFlags;

  // Local checks, then ONE agreement that also carries the header's hash (equal everywhere?), the
  // largest box extent, which timesteps anyone registered and the budget.
  Agreement out;
  out.extent = Point(dims);
  std::vector<int64_t> registered_flags(part_flags ? declared.size() * static_cast<size_t>(nfields) : 0, 0);
  std::exception_ptr input_error;
  const NodeShare node = ThisNode(comm_);  // collective: every rank asks
  const int64_t default_budget = AggregationWindow::DefaultBudget(node.ranks);
  int64_t budget = default_budget;
  try {
    budget = AggregationWindow::ChooseBudget(options_.memory_budget, default_budget);
    CheckThreadsOption(options_.encoding_threads, "encoding_threads");
    out.threads = ThreadsFor(options_.encoding_threads, node);
    for (const Registered& r : registered_) {
      const Piece& p = r.piece;
      Check(p.field >= 0 && p.field < nfields, ErrorCode::kInvalidArgument,
            "field index " + std::to_string(p.field) + " outside 0.." + std::to_string(nfields - 1));
      Check(header_.time.Contains(r.time), ErrorCode::kNotFound,
            "timestep " + std::to_string(r.time) + " is not declared in the header");
      Check(p.box.dims() == header_.dims() && !p.box.Empty() && p.box.Intersect(header_.box) == p.box,
            ErrorCode::kInvalidArgument,
            "box " + p.box.ToRangesString() + " is empty or not inside the dataset box " + header_.box.ToRangesString());
      Check(p.data != nullptr, ErrorCode::kInvalidArgument, "box " + p.box.ToRangesString() + " has no data");
      out.local_data_bytes += header_.fields[static_cast<size_t>(p.field)].dtype.BytesFor(p.box.Size().Product());
      for (int d = 0; d < dims; ++d) out.extent[d] = std::max(out.extent[d], p.box.p2[d] - p.box.p1[d]);
      if (part_flags) {
        const auto at = std::lower_bound(declared.begin(), declared.end(), r.time);
        if (at != declared.end() && *at == r.time)
          registered_flags[static_cast<size_t>(at - declared.begin()) * static_cast<size_t>(nfields) +
                           static_cast<size_t>(p.field)] = 1;
      }
    }
  } catch (...) {
    input_error = std::current_exception();
  }
  const uint64_t hash = HeaderHash(header_.ToText());
  const int64_t hi = static_cast<int64_t>(hash >> 32), lo = static_cast<int64_t>(hash & 0xffffffffu);
  std::vector<int64_t> agreed{hi, lo, -hi, -lo};  // max(h) == -max(-h) iff every rank has the same h
  agreed.insert(agreed.end(), out.extent.v.begin(), out.extent.v.begin() + dims);
  agreed.insert(agreed.end(), registered_flags.begin(), registered_flags.end());
  agreed.push_back(-CpusPerRank(node));
  agreed.push_back(-budget);  // the smallest budget of any rank holds for all
  agreed = AgreeAndMax(comm_, std::move(agreed), input_error);
  out.budget = -agreed.back();
  out.fewest_cpus = static_cast<int>(-agreed[agreed.size() - 2]);
  Check(agreed[0] == -agreed[2] && agreed[1] == -agreed[3], ErrorCode::kInvalidArgument,
        "the ranks were given different headers (the header must be the same on every rank)");
  for (int d = 0; d < dims; ++d) out.extent[d] = agreed[4 + static_cast<size_t>(d)];
  if (part_flags) {
    for (size_t i = 0; i < registered_flags.size(); ++i)
      if (agreed[4 + static_cast<size_t>(dims) + i] != 0)
        out.parts.emplace_back(declared[i / static_cast<size_t>(nfields)], static_cast<int>(i % static_cast<size_t>(nfields)));
  } else {
    out.parts = RegisteredParts();
  }
  for (const auto& part : out.parts)
    if (out.times.empty() || out.times.back() != part.first) out.times.push_back(part.first);
  return out;
}

BlockFiles ParallelWriter::OpenTransaction(std::optional<DatasetTransaction>& txn) const {
  // Rank 0 opens the transaction now that everybody agreed the input is good: the lock, then a
  // new dataset in place or a new generation of an existing one (which stays readable until the
  // commit). Every rank writes into the directory it names.
  std::string file_template;
  std::exception_ptr prepare_error;
  if (CommRank(comm_) == 0) {
    try {
      CheckDiskRoom(header_, idx_path_);
      TransactionOptions transaction;
      transaction.sync = options_.sync;
      transaction.wait = options_.wait;
      transaction.notify = options_.notify;
      txn.emplace(idx_path_, transaction);
      if (txn->exists()) {
        Check(options_.overwrite, ErrorCode::kInvalidArgument,
              idx_path_ + " already exists (pass overwrite to replace it)");
        // PIDX derives the data directory from the .idx name: no new generation beside the old
        // files, the old dataset goes first.
        if (options_.pidx_compatible) {
          txn->RemoveCommitted();
          txn->Create(header_);
        } else {
          txn->Replace(header_);
        }
      } else {
        txn->Create(header_);
      }
      file_template = txn->target().filename_template;
    } catch (...) {
      prepare_error = std::current_exception();
    }
  }
  IdxHeader target = header_;
  target.filename_template = BroadcastText(comm_, file_template, prepare_error);
  return BlockFiles(target, IdxDirectory(idx_path_));
}

std::vector<RegularBox> ParallelWriter::RestructureTimestep(int64_t time, const CellPlan& cells, IoStats& stats) const {
  const double t0 = MPI_Wtime();
  std::vector<Piece> pieces;
  for (const Registered& r : registered_)
    if (r.time == time) pieces.push_back(r.piece);
  std::vector<RegularBox> out =
      Restructure(comm_, cells.grid, header_.fields, pieces, cells.touched, cells.cells_cover_blocks);
  stats.local.restructure += MPI_Wtime() - t0;
  return out;
}

IoStats ParallelWriter::Write() {
  const double t_start = MPI_Wtime();
  const int ranks = CommSize(comm_);
  IoStats stats;
  // Plan: the input checked and agreed, the transaction opened (rank 0), the cells and the rounds
  // (functions of agreed values only: every rank computes the same).
  const Agreement agreed = AgreeOnInput();
  const CellPlan cells(header_, ImposedGrid::ChooseCellSize(options_.restructure, agreed.extent, header_.bitmask), ranks,
                       agreed.threads);
  const WriteRounds rounds = PlanWriteRounds(header_, options_.aggregators, ranks, agreed.budget, agreed.times.size(),
                                             OverlapPays(options_.overlap_io, options_.sync, agreed.fewest_cpus));
  std::optional<DatasetTransaction> txn;  // before the pipeline: it outlives the writes in flight
  const BlockFiles files = OpenTransaction(txn);

  // Per timestep: restructure once, then each round encodes, exchanges and writes its files.
  RoundPipeline pipeline(comm_, header_, files, cells, rounds, options_, stats);
  for (const int64_t time : agreed.times) {
    std::vector<RegularBox> timestep_cells = RestructureTimestep(time, cells, stats);
    for (const FileAggregation& plan : rounds.plans)
      pipeline.Run(plan, time, timestep_cells, &plan == &rounds.plans.back());
  }
  pipeline.Finish();  // every write done and agreed before the commit (with sync: on the disk)

  // Commit: one rank, atomically, only after every rank's files are written; its outcome is agreed
  // with the statistics. The superseded generation is removed after that, so the other ranks need
  // not wait for it.
  std::exception_ptr idx_error;
  if (txn) {
    try {
      for (const auto& [time, field] : agreed.parts) txn->MarkWritten(field, time);
      txn->Commit(/*remove_superseded=*/false);
    } catch (...) {
      idx_error = std::current_exception();
    }
  }
  const FileAggregation whole_plan(header_, options_.aggregators, ranks);
  stats.aggregators = whole_plan.aggregators();
  stats.rounds = static_cast<int64_t>(rounds.plans.size());
  stats.overlapped = rounds.overlap;
  stats.local_aggregator_bytes = pipeline.aggregator_bytes();
  stats.local_zero_copy_bytes = pipeline.zero_copy_bytes();
  stats.cell_size = cells.grid.cell_size();
  FinishStats(comm_, stats, MPI_Wtime() - t_start, agreed.local_data_bytes, pipeline.aggregator_bytes(),
              [&](int64_t a) { return whole_plan.Rank(a); }, idx_error);
  if (txn) txn->RemoveSuperseded();
  return stats;
}

IdxHeader MakeHeader(const Point& dims, const std::vector<Field>& fields, int64_t timesteps, int bits_per_block,
                     int64_t blocks_per_file, const std::string& compression, const std::string& idx_path, int ranks) {
  IdxHeader h;
  h.version = 6;
  h.box = Box(Point(dims.dims), dims);
  h.fields = fields;
  for (Field& f : h.fields) {
    f.hz_layout = true;
    f.compression = compression == "raw" ? "" : compression;
  }
  h.bits_per_block = bits_per_block;
  h.blocks_per_file = blocks_per_file;
  Check(timesteps >= 1, ErrorCode::kInvalidArgument, "--timesteps must be >= 1");
  if (timesteps > 1) {
    h.time = TimeSpec::Range(0, timesteps - 1, "time_%02d/");
    h.has_time = true;
  }
  h.Validate(IdxStemOf(idx_path));
  if (blocks_per_file == 0) SplitFilesAcrossRanks(h, ranks, idx_path);
  return h;
}

void SplitFilesAcrossRanks(IdxHeader& validated, int ranks, const std::string& idx_path) {
  const int64_t bpf = FileAggregation::DefaultBlocksPerFile(validated, ranks);
  if (bpf == validated.blocks_per_file) return;
  validated.blocks_per_file = bpf;
  validated.Validate(IdxStemOf(idx_path));
}

std::vector<Field> ParseFieldList(const std::string& text) {
  std::vector<Field> fields;
  for (const std::string& item : Split(text, ',')) {
    const size_t colon = item.find(':');
    Check(colon != std::string::npos && colon > 0 && colon + 1 < item.size(), ErrorCode::kInvalidArgument,
          "--fields item '" + item + "' must be NAME:DTYPE");
    Field f;
    f.name = item.substr(0, colon);
    f.dtype = DType::Parse(item.substr(colon + 1));
    fields.push_back(f);
  }
  Check(!fields.empty(), ErrorCode::kInvalidArgument, "--fields is empty");
  return fields;
}

}  // namespace hzio::mpi
