#include "hzio/mpi/parallel_writer.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>

#include "hzio/access/dataset_paths.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/codec/codec.h"
#include "hzio/format/block_files.h"
#include "hzio/format/pidx_output.h"
#include "hzio/hz/block_layout.h"
#include "hzio/mpi/aggregation_window.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/util/box_copy.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/file_portions.h"
#include "hzio/hz/box_encoder.h"
#include "hzio/util/buffer_pool.h"
#include "hzio/util/strings.h"
#include "hzio/util/thread_pool.h"

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

// Encoded runs bound for other ranks' aggregator buffers, packed back to back into one pool
// buffer and kept until the puts complete. A run that continues the previous one (same target,
// next displacement) extends it and shares its put.
class PutStaging {
 public:
  /// Room for `capacity` bytes (may throw: call where failures are caught).
  void Reserve(int64_t capacity) { arena_ = PooledBuffer(static_cast<size_t>(capacity)); }
  uint8_t* Add(int target, int64_t displacement, int64_t bytes) {
    Check(used_ + bytes <= static_cast<int64_t>(arena_.size()), ErrorCode::kInternal, "put staging overflow");
    uint8_t* at = arena_.data() + used_;
    used_ += bytes;
    if (!runs_.empty() && runs_.back().target == target &&
        runs_.back().displacement + runs_.back().bytes == displacement) {
      runs_.back().bytes += bytes;
    } else {
      runs_.push_back(Run{target, displacement, bytes, at});
    }
    return at;
  }
  void PutAll(AggregationWindow& window) const {
    for (const Run& r : runs_) window.Put(r.data, r.bytes, r.target, r.displacement);
  }

 private:
  struct Run {
    int target;
    int64_t displacement, bytes;
    const uint8_t* data;
  };
  PooledBuffer arena_;
  int64_t used_ = 0;
  std::vector<Run> runs_;
};

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

IoStats ParallelWriter::Write() {
  const double t_start = MPI_Wtime();
  const int rank = CommRank(comm_), ranks = CommSize(comm_);
  IoStats stats;
  const int nfields = static_cast<int>(header_.fields.size());

  // Geometry and the aggregation plan depend only on the header: every rank computes them alone.
  const BlockLayout layout(header_.bitmask, header_.bits_per_block);
  const int dims = header_.dims();
  const FileAggregation whole_plan(header_, options_.aggregators, ranks);
  const std::string text = header_.ToText();
  std::vector<int64_t> declared = header_.time.List(kMaxPartFlags + 1);
  std::sort(declared.begin(), declared.end());
  declared.erase(std::unique(declared.begin(), declared.end()), declared.end());
  const bool part_flags = !header_.time.any && declared.size() * static_cast<size_t>(nfields) <= kMaxPartFlags;

  // Local checks and the aggregator buffer, then ONE agreement that also carries the header's
  // hash (equal everywhere?), the largest box extent and which timesteps anyone registered.
  int64_t local_data_bytes = 0;
  Point extent(dims);
  std::vector<int64_t> registered_flags(part_flags ? declared.size() * static_cast<size_t>(nfields) : 0, 0);
  std::exception_ptr input_error;
  const int64_t default_budget = AggregationWindow::DefaultBudget(comm_);  // collective: every rank asks
  int64_t budget = default_budget;
  try {
    budget = AggregationWindow::ChooseBudget(options_.memory_budget, default_budget);
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
      local_data_bytes += header_.fields[static_cast<size_t>(p.field)].dtype.BytesFor(p.box.Size().Product());
      for (int d = 0; d < dims; ++d) extent[d] = std::max(extent[d], p.box.p2[d] - p.box.p1[d]);
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
  const uint64_t hash = HeaderHash(text);
  const int64_t hi = static_cast<int64_t>(hash >> 32), lo = static_cast<int64_t>(hash & 0xffffffffu);
  std::vector<int64_t> agreed{hi, lo, -hi, -lo};  // max(h) == -max(-h) iff every rank has the same h
  agreed.insert(agreed.end(), extent.v.begin(), extent.v.begin() + dims);
  agreed.insert(agreed.end(), registered_flags.begin(), registered_flags.end());
  agreed.push_back(-budget);  // the smallest budget of any rank holds for all
  agreed = AgreeAndMax(comm_, std::move(agreed), input_error);
  budget = -agreed.back();
  Check(agreed[0] == -agreed[2] && agreed[1] == -agreed[3], ErrorCode::kInvalidArgument,
        "the ranks were given different headers (the header must be the same on every rank)");
  for (int d = 0; d < dims; ++d) extent[d] = agreed[4 + static_cast<size_t>(d)];
  std::vector<std::pair<int64_t, int>> parts;  // (time, field), sorted
  if (part_flags) {
    for (size_t i = 0; i < registered_flags.size(); ++i)
      if (agreed[4 + static_cast<size_t>(dims) + i] != 0)
        parts.emplace_back(declared[i / static_cast<size_t>(nfields)], static_cast<int>(i % static_cast<size_t>(nfields)));
  } else {
    parts = RegisteredParts();
  }
  std::vector<int64_t> times;
  for (const auto& part : parts)
    if (times.empty() || times.back() != part.first) times.push_back(part.first);

  // Rank 0 opens the transaction now that everybody agreed the input is good: the lock, then a
  // new dataset in place or a new generation of an existing one (which stays readable until the
  // commit). Every rank writes into the directory it names.
  std::optional<DatasetTransaction> txn;
  std::string file_template;
  std::exception_ptr prepare_error;
  if (rank == 0) {
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
  const BlockFiles files(target, IdxDirectory(idx_path_));

  const Point cell = ImposedGrid::ChooseCellSize(options_.restructure, extent, header_.bitmask);
  const ImposedGrid grid(header_.bitmask, header_.box, cell);
  const BoxEncoder encoder(header_.bitmask, grid.cell_size());
  // The part of any cell the encoder reads: the dataset box rounded out to whole subtrees.
  Box touched = header_.box;
  for (int d = 0; d < dims; ++d) {
    const int64_t st = encoder.subtree_size()[d];
    touched.p1[d] = touched.p1[d] / st * st;
    touched.p2[d] = (touched.p2[d] + st - 1) / st * st;
  }
  // When those subtrees fill the padded box, every hz address of every stored block is some
  // subtree's (the usual power-of-two domains): encoding every cell writes every sample. Not when
  // the cells are many per rank (small boxes in a large domain): empty cells would then cost more
  // than filling the aggregators' buffers.
  constexpr int64_t kMaxCellsPerRank = 64;
  const bool cells_cover_blocks =
      touched == header_.bitmask.PaddedBox() && grid.num_cells() <= kMaxCellsPerRank * ranks;

  // The rounds (one when the timestep's buffers fit the budget) and the aggregators' memory:
  // every rank's part sized for the largest aggregator buffer of any round, reused round by round.
  // When there is more than one round in all, the part is cut in two halves under the same budget
  // and the rounds alternate between them: the files of round r are written on an I/O thread from
  // one half while round r+1 is encoded and exchanged into the other, so a write costs about
  // max(hz + exchange, io) rather than their sum.
  const auto plan_rounds = [&](int64_t round_budget) {
    std::vector<FileAggregation> planned;
    for (const Span round_files : FileAggregation::Rounds(header_, options_.aggregators, ranks, round_budget))
      planned.emplace_back(header_, options_.aggregators, ranks, round_files);
    return planned;
  };
  // A timestep that fits one round is still cut into a few (up to kOverlapRounds) when the write is
  // large enough for the overlap to pay: the pipeline then hides all but about 1/kOverlapRounds of
  // the shorter of encoding and I/O. Such rounds keep at least one whole file per aggregator:
  // cutting files to make rounds would leave one writer per shared file (file_portions.h).
  constexpr int64_t kOverlapRounds = 4;
  constexpr int64_t kMinOverlapBytes = int64_t{16} << 20;  // per aggregator and timestep
  std::vector<FileAggregation> rounds = plan_rounds(budget);
  bool overlap = false;
  if (options_.overlap_io) {
    const int64_t largest = whole_plan.MaxBufferBytes();
    const int64_t round_budget =
        std::min(budget / 2, std::max({FileAggregation::FileBufferBytes(header_), kMinOverlapBytes / kOverlapRounds,
                                       largest / kOverlapRounds}));
    if (largest * static_cast<int64_t>(times.size()) >= kMinOverlapBytes || rounds.size() > 1) {
      std::vector<FileAggregation> halves_rounds = plan_rounds(round_budget);
      // Not when half the budget would cut files that the whole budget keeps whole, nor when the
      // two halves would exceed the budget (a round is one file at least: when a file does not fit
      // half of it, the one-buffer plan's memory is the bound).
      int64_t half_max = 0, one_max = 0;
      for (const FileAggregation& plan : halves_rounds) half_max = std::max(half_max, plan.MaxBufferBytes());
      for (const FileAggregation& plan : rounds) one_max = std::max(one_max, plan.MaxBufferBytes());
      if (halves_rounds.size() * times.size() > 1 && 2 * half_max <= std::max(budget, one_max) &&
          (halves_rounds.front().whole_files() || !rounds.front().whole_files())) {
        rounds = std::move(halves_rounds);
        overlap = true;
      }
    }
  }
  int64_t half_bytes = 0;
  for (const FileAggregation& plan : rounds) half_bytes = std::max(half_bytes, plan.MaxBufferBytes());
  constexpr int64_t kHalfAlign = 4096;  // each half starts on its own page
  half_bytes = (half_bytes + kHalfAlign - 1) / kHalfAlign * kHalfAlign;
  const int halves = overlap ? 2 : 1;
  const std::shared_ptr<AggregationWindow> shared_window =
      AggregationWindow::Acquire(comm_, half_bytes * halves, options_.windows);
  AggregationWindow& window = *shared_window;
  int64_t aggregator_bytes = 0;
  const DirectIo direct_io = options_.direct_io ? DirectIo::kAuto : DirectIo::kNever;
  // The writes in flight, one per half. One I/O thread runs them in order and does no MPI; it is
  // declared after the window, so on an error its destructor finishes the queued writes and joins
  // before the window (and the transaction, which then removes what was staged) goes.
  std::optional<ThreadPool> io_thread;
  if (overlap) io_thread.emplace(1);
  std::future<void> in_flight[2];
  std::exception_ptr io_error;  // of a write waited for, agreed at the next agreement
  const auto wait_for = [&](int half) {
    std::future<void>& f = in_flight[half];
    if (!f.valid()) return;
    const double t0 = MPI_Wtime();
    try {
      f.get();
    } catch (...) {
      if (!io_error) io_error = std::current_exception();
    }
    stats.local.io += MPI_Wtime() - t0;  // the I/O time the encoding did not hide
  };
  int64_t round_index = 0;
  // An agreed error leaves this function on every rank while writes may still be in flight: every
  // rank finishes its own, then all meet, so rank 0's transaction removes the staged files only
  // when nobody is writing any more.
  struct DrainOnError {
    MPI_Comm comm;
    std::future<void>* in_flight;
    bool active;
    int exceptions = std::uncaught_exceptions();
    ~DrainOnError() {
      if (!active || std::uncaught_exceptions() <= exceptions) return;
      for (int half = 0; half < 2; ++half)
        if (in_flight[half].valid()) in_flight[half].wait();
      MPI_Barrier(comm);
    }
  } drain_on_error{comm_, in_flight, overlap};

  for (const int64_t time : times) {
    std::vector<Piece> pieces;
    for (const Registered& r : registered_)
      if (r.time == time) pieces.push_back(r.piece);

    // Phase 1: restructure (once per timestep: every round encodes from the same cells).
    const double t_restructure = MPI_Wtime();
    std::vector<RegularBox> cells = Restructure(comm_, grid, header_.fields, pieces, touched, cells_cover_blocks);
    stats.local.restructure += MPI_Wtime() - t_restructure;

    for (const FileAggregation& plan : rounds) {
      const int half = static_cast<int>(round_index++ % halves);
      const int64_t half_offset = half * half_bytes;
      uint8_t* const agg_buffer = window.data() + half_offset;
      // This half was last read by the write of two rounds ago: it must be done on every rank before
      // anyone stores into the half again (this wait, then the opening fence below).
      wait_for(half);
      const int64_t my_agg = AggregatorOfRank(rank, plan.aggregators(), ranks);
      const int unit_bits = plan.unit_bits();
      // Where each aggregator's buffer can be stored to directly (this rank's own, or one on this
      // node in a node-shared window), else null: its runs are staged and put.
      std::vector<uint8_t*> direct(static_cast<size_t>(plan.aggregators()));
      for (int64_t a = 0; a < plan.aggregators(); ++a)
        if (uint8_t* part = window.Direct(plan.Rank(a))) direct[static_cast<size_t>(a)] = part + half_offset;
      const std::vector<const uint8_t*> readable(direct.begin(), direct.end());
      // This round's hz range: runs before or after it are skipped (another round stores them).
      const uint64_t round_begin = static_cast<uint64_t>(plan.Units(0).begin) << unit_bits;
      const uint64_t round_end = static_cast<uint64_t>(plan.Units(plan.aggregators() - 1).end) << unit_bits;
      const bool last_round = &plan == &rounds.back();
      // Samples nobody writes must read back as the field's default (idx-format.md §4.9). When the
      // cells cover every stored block, restructuring gave every cell and field data (the default
      // where no rank had any) and the encoders write every sample. Otherwise the aggregator's buffer
      // starts as fill samples: only blocks holding samples of the dataset box are filled (and ever
      // written), the others' pages are never touched, so padding (up to 8x) costs no memory.
      double t0 = MPI_Wtime();
      if (my_agg >= 0 && !cells_cover_blocks) {
        const Span units = plan.Units(my_agg);
        std::vector<std::vector<uint8_t>> fills;
        for (const Field& field : header_.fields) fills.push_back(field.DefaultSample());
        for (int64_t u = units.begin; u < units.end; ++u) {
          if (!BlockTouchesBox(layout, static_cast<uint64_t>(u / plan.units_per_block()), header_.box)) continue;
          for (int f = 0; f < nfields; ++f)
            FillWithSample(agg_buffer + plan.FieldBase(my_agg, f) + (u - units.begin) * plan.unit_bytes(f),
                           int64_t{1} << plan.unit_bits(), fills[static_cast<size_t>(f)]);
        }
      }
      // The opening fence: every aggregator's buffer is filled before anyone stores into it.
      window.Fence(MPI_MODE_NOPRECEDE);
      stats.local.aggregate += MPI_Wtime() - t0;

      // Phase 2: HZ encoding, cell by cell and field by field, straight into the aggregator's buffer
      // where this rank can store to it (its own; any on this node with a node-shared window), else
      // into staging for a put. A failure here is agreed on together with the puts (the failing
      // rank stores and puts nothing more but still takes part in the fences).
      t0 = MPI_Wtime();
      PutStaging staging;
      std::exception_ptr error;
      try {
        int64_t cell_bytes = 0;  // what the cells hold: a bound on what is put to other nodes
        for (const RegularBox& rb : cells)
          for (int f = 0; f < nfields; ++f)
            if (rb.Data(f))
              cell_bytes += header_.fields[static_cast<size_t>(f)].dtype.BytesFor(rb.box.Intersect(touched).Size().Product());
        // ... and on what this round's aggregators hold.
        int64_t round_bytes = 0;
        for (int64_t a = 0; a < plan.aggregators(); ++a) round_bytes += plan.BufferBytes(a);
        if (std::find(direct.begin(), direct.end(), nullptr) != direct.end())
          staging.Reserve(std::min(cell_bytes, round_bytes));
        for (RegularBox& rb : cells) {
          for (int f = 0; f < nfields; ++f) {
            const uint8_t* data = rb.Data(f);
            if (!data) continue;
            const int64_t sb = header_.fields[static_cast<size_t>(f)].dtype.SampleBytes();
            encoder.Encode(rb.box, data, sb, header_.box, [&](uint64_t hz, int64_t count) {
              if (hz < round_begin) return RunSpan{nullptr, std::min<int64_t>(count, static_cast<int64_t>(round_begin - hz))};
              if (hz >= round_end) return RunSpan{nullptr, count};
              const int64_t agg = plan.AggregatorOfUnit(hz >> unit_bits);
              const Span units = plan.Units(agg);
              const uint64_t first_hz = static_cast<uint64_t>(units.begin) << unit_bits;
              const uint64_t end_hz = static_cast<uint64_t>(units.end) << unit_bits;
              const int64_t n = std::min<int64_t>(count, static_cast<int64_t>(end_hz - hz));
              const int64_t displacement = plan.FieldBase(agg, f) + static_cast<int64_t>(hz - first_hz) * sb;
              if (uint8_t* to = direct[static_cast<size_t>(agg)]) return RunSpan{to + displacement, n};
              return RunSpan{staging.Add(plan.Rank(agg), half_offset + displacement, n * sb), n};
            });
            if (last_round) rb.Release(f);  // the cell copy is no longer needed
          }
        }
      } catch (...) {
        error = std::current_exception();
      }
      if (last_round) cells.clear();
      stats.local.hz += MPI_Wtime() - t0;

      // Phase 3: one-sided puts of the staged runs into the buffers of aggregators on other nodes.
      t0 = MPI_Wtime();
      if (!error) {
        try {
          staging.PutAll(window);
        } catch (...) {
          error = std::current_exception();
        }
      }
      window.Fence(MPI_MODE_NOSUCCEED);  // closes the epoch: every store and put is in place
      if (!error && io_error) error = io_error;  // an earlier round's write failed here
      Agree(comm_, error);
      stats.local.aggregate += MPI_Wtime() - t0;

      // I/O: aggregators encode and place their files (or parts of shared files), then write them:
      // on the I/O thread while the next round is encoded, else here.
      t0 = MPI_Wtime();
      auto writes = std::make_shared<TimestepWrites>(PrepareTimestepFiles(
          comm_, header_, layout, files, plan, my_agg, readable, time, options_.sync, direct_io));
      aggregator_bytes += writes->bytes();
      if (overlap) {
        auto task = std::make_shared<std::packaged_task<void()>>([writes] { writes->Run(); });
        in_flight[half] = task->get_future();
        io_thread->Submit([task] { (*task)(); });
      } else {
        std::exception_ptr write_error;
        try {
          writes->Run();
        } catch (...) {
          write_error = std::current_exception();
        }
        Agree(comm_, write_error);
      }
      stats.local.io += MPI_Wtime() - t0;
    }
  }
  // Every write done and agreed before the commit (with sync: on the disk).
  for (int half = 0; half < halves; ++half) wait_for(half);
  if (overlap) Agree(comm_, io_error);

  // The commit: one rank, atomically, only after every rank's files are written (the last
  // timestep's write ended with an agreement); its outcome is agreed with the statistics. The
  // superseded generation is removed after that, so the other ranks need not wait for it.
  std::exception_ptr idx_error;
  if (rank == 0) {
    try {
      for (const auto& [time, field] : parts) txn->MarkWritten(field, time);
      txn->Commit(/*remove_superseded=*/false);
    } catch (...) {
      idx_error = std::current_exception();
    }
  }

  stats.aggregators = whole_plan.aggregators();
  stats.rounds = static_cast<int64_t>(rounds.size());
  stats.overlapped = overlap;
  stats.local_aggregator_bytes = aggregator_bytes;
  stats.cell_size = grid.cell_size();
  FinishStats(comm_, stats, MPI_Wtime() - t_start, local_data_bytes, aggregator_bytes,
              [&](int64_t a) { return whole_plan.Rank(a); }, idx_error);
  if (txn) txn->RemoveSuperseded();
  return stats;
}

IdxHeader MakeHeader(const Point& dims, const std::vector<Field>& fields, int64_t timesteps, int bits_per_block,
                     int64_t blocks_per_file, const std::string& compression, const std::string& idx_path) {
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
  return h;
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
