#include "hzio/mpi/write_rounds.h"

#include <algorithm>

#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/file_portions.h"
#include "hzio/storage/file.h"
#include "hzio/util/box_copy.h"
#include "hzio/util/buffer_pool.h"

namespace hzio::mpi {

namespace {

// A timestep that fits one round is still cut into a few (up to kOverlapRounds) when the write is
// large enough for the overlap to pay: the pipeline then hides all but about 1/kOverlapRounds of
// the shorter of encoding and I/O. Such rounds keep at least one whole file per aggregator:
// cutting files to make rounds would leave one writer per shared file (file_portions.h).
constexpr int64_t kOverlapRounds = 4;
constexpr int64_t kMinOverlapBytes = int64_t{16} << 20;  // per aggregator and timestep
constexpr int64_t kHalfAlign = 4096;                      // each half starts on its own page

// When the cells' subtrees fill the padded box, every hz address of every stored block is some
// subtree's (the usual power-of-two domains): encoding every cell writes every sample. Not when
// the cells are many per rank (small boxes in a large domain): empty cells would then cost more
// than filling the aggregators' buffers.
constexpr int64_t kMaxCellsPerRank = 64;

// A durable write of whole raw files writes what the steps so far made final at up to about this
// many points of a round (RoundPipeline::Schedule, release_schedule.h).
constexpr int64_t kMaxReleases = 8;
constexpr int64_t kMaxStartedFiles = 64;

std::vector<FileAggregation> PlanRounds(const IdxHeader& header, int64_t requested, int ranks, int64_t round_budget) {
  std::vector<FileAggregation> planned;
  for (const std::vector<Span>& round_files : FileAggregation::Rounds(header, requested, ranks, round_budget))
    planned.emplace_back(header, requested, ranks, round_files);
  return planned;
}

int64_t MaxBufferBytes(const std::vector<FileAggregation>& plans) {
  int64_t bytes = 0;
  for (const FileAggregation& plan : plans) bytes = std::max(bytes, plan.MaxBufferBytes());
  return bytes;
}

// Where an aggregator's buffer may start past a page boundary. A whole file of one raw field is its
// block table, then the aggregator's buffer byte for byte: with the buffer starting as far into a
// page as the table ends, every page of the file after the table's is a page of the buffer, and
// its direct writes go out from the window with no staging copy (storage/staged_file_write.h).
// The halves keep the lead's alignment: they start on multiples of what a direct write needs.
static_assert(kHalfAlign % kDirectIoAlignment == 0);
int64_t BufferLead(const IdxHeader& header, const FileAggregation& plan) {
  if (!plan.raw() || !plan.whole_files() || header.fields.size() != 1) return 0;
  return FileTableBytes(header, plan) % kDirectIoAlignment;
}

}  // namespace

bool OverlapPays(IoOverlap option, bool sync, int fewest_cpus) {
  switch (option) {
    case IoOverlap::kAlways: return true;
    case IoOverlap::kNever: return false;
    case IoOverlap::kAuto: break;
  }
  return sync || fewest_cpus > 1;
}

WriteRounds PlanWriteRounds(const IdxHeader& header, int64_t requested, int ranks, int64_t budget, size_t timesteps,
                            bool overlap_io) {
  WriteRounds out;
  out.plans = PlanRounds(header, requested, ranks, budget);
  if (overlap_io) {
    const int64_t largest = FileAggregation(header, requested, ranks).MaxBufferBytes();
    const int64_t round_budget =
        std::min(budget / 2, std::max({FileAggregation::FileBufferBytes(header), kMinOverlapBytes / kOverlapRounds,
                                       largest / kOverlapRounds}));
    if (largest * static_cast<int64_t>(timesteps) >= kMinOverlapBytes || out.plans.size() > 1) {
      std::vector<FileAggregation> halves = PlanRounds(header, requested, ranks, round_budget);
      // Not when half the budget would cut files that the whole budget keeps whole, nor when the
      // two halves would exceed the budget (a round is one file at least: when a file does not fit
      // half of it, the one-buffer plan's memory is the bound).
      if (halves.size() * timesteps > 1 && 2 * MaxBufferBytes(halves) <= std::max(budget, MaxBufferBytes(out.plans)) &&
          (halves.front().whole_files() || !out.plans.front().whole_files())) {
        out.plans = std::move(halves);
        out.overlap = true;
      }
    }
  }
  out.lead = BufferLead(header, out.plans.front());
  out.half_bytes = (MaxBufferBytes(out.plans) + out.lead + kHalfAlign - 1) / kHalfAlign * kHalfAlign;
  return out;
}

CellPlan::CellPlan(const IdxHeader& header, const Point& cell_size, int ranks, int threads)
    : threads(std::max(threads, 1)),
      grid(header.bitmask, header.box, cell_size),
      encoder(header.bitmask, grid.cell_size(), BoxEncoder::SplitFor(this->threads)),
      touched(header.box) {
  // The part of any cell the encoder reads: the dataset box rounded out to whole subtrees.
  for (int d = 0; d < header.dims(); ++d) {
    const int64_t st = encoder.subtree_size()[d];
    touched.p1[d] = touched.p1[d] / st * st;
    touched.p2[d] = (touched.p2[d] + st - 1) / st * st;
  }
  cells_cover_blocks = touched == header.bitmask.PaddedBox() && grid.num_cells() <= kMaxCellsPerRank * ranks;
}

// Encoded runs bound for other ranks' aggregator buffers, packed back to back into one pool
// buffer and kept until the puts complete. A run that continues the previous one (same target,
// next displacement) extends it and shares its put.
class RoundPipeline::PutStaging {
 public:
  /// Room for `capacity` bytes (may throw: call where failures are caught).
  void Reserve(int64_t capacity) { arena_ = PooledBuffer(static_cast<size_t>(capacity)); }
  uint8_t* Add(int target, int64_t displacement, int64_t bytes) {
    Check(used_ + bytes <= static_cast<int64_t>(arena_.size()), ErrorCode::kInternal, "put staging overflow");
    uint8_t* at = arena_.data() + used_;
    used_ += bytes;
    if (runs_.size() > put_ && runs_.back().target == target &&
        runs_.back().displacement + runs_.back().bytes == displacement) {
      runs_.back().bytes += bytes;
    } else {
      runs_.push_back(Run{target, displacement, bytes, at});
    }
    return at;
  }
  /// Puts the runs added since the last call (the window's epoch is open).
  void PutPending(AggregationWindow& window) {
    for (; put_ < runs_.size(); ++put_) window.Put(runs_[put_].data, runs_[put_].bytes, runs_[put_].target, runs_[put_].displacement);
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
  size_t put_ = 0;  // runs_[0, put_) are put
};

RoundPipeline::RoundPipeline(MPI_Comm comm, const IdxHeader& header, const BlockFiles& files, const CellPlan& cells,
                             const WriteRounds& rounds, const WriteOptions& options, IoStats& stats)
    : comm_(comm),
      header_(header),
      files_(files),
      cells_(cells),
      rounds_(rounds),
      options_(options),
      stats_(stats),
      layout_(header.bitmask, header.bits_per_block),
      rank_(CommRank(comm)),
      ranks_(CommSize(comm)),
      window_(AggregationWindow::Acquire(comm, rounds.half_bytes * rounds.halves(), options.windows)) {
  if (rounds_.overlap) io_thread_.emplace(1);
  if (cells_.threads > 1) encoders_.emplace(cells_.threads - 1);
  // Writes straight from the window pay only from private memory, which comes in huge pages. A
  // node-shared window's 4 KiB pages lie scattered: direct writes from such pages took 379-404 ms
  // for 512 MiB against 300-325 from huge pages (hzio_flush_probe --pages small|huge), more than the
  // staging copy saves. 512^3 float32, durable, with the lead: 1 rank (private) 0.411-0.445 s
  // against 0.436-0.496 without, 22% less CPU; 2 ranks (node-shared) 0.86-0.96 s against 0.72-0.82
  // (bench/mpi/RESULTS.md). The window's kind is agreed: the same on every rank.
  if (window_->kind() == WindowKind::kRma) lead_ = rounds_.lead;
}

RoundPipeline::~RoundPipeline() {
  if (!rounds_.overlap || std::uncaught_exceptions() <= exceptions_) return;
  for (std::future<void>& f : in_flight_)
    if (f.valid()) f.wait();
  MPI_Barrier(comm_);
}

void RoundPipeline::WaitFor(int half) {
  std::future<void>& f = in_flight_[half];
  if (!f.valid()) return;
  const double t0 = MPI_Wtime();
  try {
    f.get();
  } catch (...) {
    if (!io_error_) io_error_ = std::current_exception();
  }
  stats_.local.io += MPI_Wtime() - t0;  // the I/O time the encoding did not hide
}

void RoundPipeline::Run(const FileAggregation& plan, int64_t time, std::vector<RegularBox>& cells, bool last_round) {
  AggregationWindow& window = *window_;
  const int half = static_cast<int>(round_index_++ % rounds_.halves());
  const int64_t half_offset = half * rounds_.half_bytes + lead_;
  // This half was last read by the write of two rounds ago: it must be done on every rank before
  // anyone stores into the half again (this wait, then the opening fence below).
  WaitFor(half);
  const int64_t my_agg = AggregatorOfRank(rank_, plan.aggregators(), ranks_);
  // Where each aggregator's buffer can be stored to directly (this rank's own, or one on this
  // node in a node-shared window), else null: its runs are staged and put.
  std::vector<uint8_t*> direct(static_cast<size_t>(plan.aggregators()));
  for (int64_t a = 0; a < plan.aggregators(); ++a)
    if (uint8_t* part = window.Direct(plan.Rank(a))) direct[static_cast<size_t>(a)] = part + half_offset;
  const std::vector<const uint8_t*> readable(direct.begin(), direct.end());

  double t0 = MPI_Wtime();
  const bool fill = my_agg >= 0 && !cells_.cells_cover_blocks;
  // Another rank's write of two rounds ago may still read this rank's half (the raw parts of a shared
  // file held on one node are written by one of its ranks): every rank waits for its writes before
  // any aggregator fills its half again. (Stores come after the opening fence, which already waits.)
  if (rounds_.overlap && !cells_.cells_cover_blocks) MpiCheck(MPI_Barrier(comm_), "MPI_Barrier(round)");
  if (fill) Fill(plan, my_agg, window.data() + half_offset);
  // The opening fence: every aggregator's buffer is filled before anyone stores into it.
  window.Fence(MPI_MODE_NOPRECEDE);
  stats_.local.aggregate += MPI_Wtime() - t0;

  // Files written while the fields are encoded are created first (their writes start at each
  // release; a failure here is kept for their Run, after the agreements).
  const ReleaseSchedule schedule = Schedule(plan);
  std::shared_ptr<TimestepWrites> writes;
  if (schedule.releases() > 0) {
    writes = PrepareWrites(plan, schedule, my_agg, readable, time);
    writes->Start();
    stats_.releases += schedule.releases();
  }

  t0 = MPI_Wtime();
  PutStaging staging;
  std::exception_ptr error = Encode(plan, schedule, cells, last_round, half_offset, direct, writes.get(), staging);
  stats_.local.hz += MPI_Wtime() - t0;

  t0 = MPI_Wtime();
  Exchange(staging, error);
  stats_.local.aggregate += MPI_Wtime() - t0;

  t0 = MPI_Wtime();
  if (!writes) writes = PrepareWrites(plan, schedule, my_agg, readable, time);
  WriteFiles(std::move(writes), half);
  stats_.local.io += MPI_Wtime() - t0;
}

// The steps of a round's encoding and the releases among them (release_schedule.h). Only whole files
// of a raw dataset that go out with direct writes (storage/staged_file_write.h) are started early,
// and only up to kMaxStartedFiles per aggregator (each holds a descriptor until written); otherwise
// field by field, with no release. Fields are cut into parts only when rounds do not overlap: an
// overlapped round's write already keeps the disk busy while the next is encoded, and parts cost
// encoding time (512^3 float32 x 2 ranks, durable: 0.75-0.84 s with parts, 0.68-0.74 without). The
// same on every rank.
ReleaseSchedule RoundPipeline::Schedule(const FileAggregation& plan) const {
  const int64_t files_per_aggregator = (plan.num_files() + plan.aggregators() - 1) / plan.aggregators();
  if (!options_.sync || !options_.direct_io || !plan.raw() || !plan.whole_files() ||
      FileAggregation::FileBufferBytes(header_) < kDirectIoMinBytes || files_per_aggregator > kMaxStartedFiles)
    return ReleaseSchedule::FieldByField(header_, plan);
  return ReleaseSchedule::Released(header_, plan, kMaxReleases, /*split_fields=*/!rounds_.overlap);
}

// Samples nobody writes must read back as the field's default (idx-format.md §4.9). When the cells
// cover every stored block, restructuring gave every cell and field data (the default where no rank
// had any) and the encoders write every sample. Otherwise the aggregator's buffer starts as fill
// samples: only blocks holding samples of the dataset box are filled (and ever written), the
// others' pages are never touched, so padding (up to 8x) costs no memory.
void RoundPipeline::Fill(const FileAggregation& plan, int64_t my_agg, uint8_t* agg_buffer) {
  const int nfields = static_cast<int>(header_.fields.size());
  const Span units = plan.Units(my_agg);
  std::vector<std::vector<uint8_t>> fills;
  for (const Field& field : header_.fields) fills.push_back(field.DefaultSample());
  for (int64_t u = units.begin; u < units.end; ++u) {
    if (!BlockTouchesBox(layout_, static_cast<uint64_t>(u / plan.units_per_block()), header_.box)) continue;
    for (int f = 0; f < nfields; ++f)
      FillWithSample(agg_buffer + plan.FieldBase(my_agg, f) + (u - units.begin) * plan.unit_bytes(f),
                     int64_t{1} << plan.unit_bits(), fills[static_cast<size_t>(f)]);
  }
}

// HZ encoding, step by step (a field, or a part of one: release_schedule.h) and cell by cell,
// straight into the aggregator's buffer where this rank can store to it (its own; any on this node
// with a node-shared window), else into staging for a put. After a release point the staged runs are
// put and a fence makes the steps so far final in every aggregator's buffer, whose started files
// then write them. A failure is returned, to be agreed on together with the puts (the failing rank
// stores and puts nothing more but still takes part in the fences).
std::exception_ptr RoundPipeline::Encode(const FileAggregation& plan, const ReleaseSchedule& schedule,
                                         std::vector<RegularBox>& cells, bool last_round, int64_t half_offset,
                                         const std::vector<uint8_t*>& direct, TimestepWrites* writes,
                                         PutStaging& staging) {
  const int nfields = static_cast<int>(header_.fields.size());
  const int unit_bits = plan.unit_bits();
  std::exception_ptr error;
  ThreadPool* encoders = nullptr;
  try {
    int64_t cell_bytes = 0;  // what the cells hold: a bound on what is put to other nodes
    for (const RegularBox& rb : cells)
      for (int f = 0; f < nfields; ++f)
        if (rb.Data(f))
          cell_bytes +=
              header_.fields[static_cast<size_t>(f)].dtype.BytesFor(rb.box.Intersect(cells_.touched).Size().Product());
    // ... and on what this round's aggregators hold.
    int64_t round_bytes = 0;
    for (int64_t a = 0; a < plan.aggregators(); ++a) round_bytes += plan.BufferBytes(a);
    // Staged runs are appended in order: threads encode only where every store goes to memory.
    const bool stores_only = std::find(direct.begin(), direct.end(), nullptr) == direct.end();
    if (!stores_only) staging.Reserve(std::min(cell_bytes, round_bytes));
    encoders = stores_only && encoders_ ? &*encoders_ : nullptr;
    stats_.local_threads = encoders ? encoders->size() + 1 : 1;
  } catch (...) {
    error = std::current_exception();
  }
  const std::vector<ReleaseSchedule::Step>& steps = schedule.steps();
  for (size_t s = 0; s < steps.size(); ++s) {
    const int f = steps[s].field;
    const bool field_done = steps[s].part + 1 == schedule.parts(f);
    const int64_t sb = header_.fields[static_cast<size_t>(f)].dtype.SampleBytes();
    // The step's hz ranges (this round's, or a part of them): the encoder reads and hands out only
    // their samples, so a round or part costs what it holds, not a walk over every cell.
    std::vector<HzRange> ranges;
    for (const Span units : schedule.PartUnits(f, steps[s].part))
      ranges.push_back(HzRange{static_cast<uint64_t>(units.begin) << unit_bits, static_cast<uint64_t>(units.end) << unit_bits});
    const auto place = [&](uint64_t hz, int64_t count) {  // hz is in one of the round's ranges
      const int64_t agg = plan.AggregatorOfUnit(hz >> unit_bits);
      const Span units = plan.Units(agg);
      const uint64_t first_hz = static_cast<uint64_t>(units.begin) << unit_bits;
      const uint64_t end_hz = static_cast<uint64_t>(units.end) << unit_bits;
      const int64_t n = std::min<int64_t>(count, static_cast<int64_t>(end_hz - hz));
      const int64_t displacement = plan.FieldBase(agg, f) + static_cast<int64_t>(hz - first_hz) * sb;
      if (uint8_t* to = direct[static_cast<size_t>(agg)]) return RunSpan{to + displacement, n};
      return RunSpan{staging.Add(plan.Rank(agg), half_offset + displacement, n * sb), n};
    };
    for (RegularBox& rb : cells) {
      const uint8_t* data = rb.Data(f);
      if (!data || error) continue;
      try {
        for (const HzRange& range : ranges)
          cells_.encoder.Encode(rb.box, data, sb, header_.box, place, range, encoders);
      } catch (...) {
        error = std::current_exception();
      }
      if (last_round && field_done) rb.Release(f);  // the cell copy is no longer needed
    }
    if (!steps[s].release) continue;
    if (!error) {
      try {
        staging.PutPending(*window_);
      } catch (...) {
        error = std::current_exception();
      }
    }
    window_->Fence();  // every rank's stores and puts of steps 0..s are in place
    if (writes && !error) writes->Release(static_cast<int>(s));
  }
  if (last_round) cells.clear();
  return error;
}

// One-sided puts of the staged runs into the buffers of aggregators on other nodes, the closing
// fence, then one agreement on every rank's error of this round (and an earlier round's write).
void RoundPipeline::Exchange(PutStaging& staging, std::exception_ptr& error) {
  if (!error) {
    try {
      staging.PutPending(*window_);
    } catch (...) {
      error = std::current_exception();
    }
  }
  window_->Fence(MPI_MODE_NOSUCCEED);  // closes the epoch: every store and put is in place
  if (!error && io_error_) error = io_error_;  // an earlier round's write failed here
  Agree(comm_, error);
}

// Collective: aggregators encode and place their files (or parts of shared files), to be written.
std::shared_ptr<TimestepWrites> RoundPipeline::PrepareWrites(const FileAggregation& plan,
                                                             const ReleaseSchedule& schedule, int64_t my_agg,
                                                             const std::vector<const uint8_t*>& readable,
                                                             int64_t time) {
  const DirectIo direct_io = options_.direct_io ? DirectIo::kAuto : DirectIo::kNever;
  auto writes = std::make_shared<TimestepWrites>(
      PrepareTimestepFiles(comm_, header_, layout_, files_, plan, schedule, my_agg, readable, time, options_.sync,
                           direct_io, &window_->write_sources()));
  aggregator_bytes_ += writes->bytes();
  return writes;
}

// The round's writes (or what is left of them): on the I/O thread while the next round is
// encoded, else here (and agreed).
void RoundPipeline::WriteFiles(std::shared_ptr<TimestepWrites> writes, int half) {
  const auto run = [this, writes] {
    writes->Run();
    zero_copy_bytes_ += writes->zero_copy_bytes();
  };
  if (rounds_.overlap) {
    auto task = std::make_shared<std::packaged_task<void()>>(run);
    in_flight_[half] = task->get_future();
    io_thread_->Submit([task] { (*task)(); });
    return;
  }
  std::exception_ptr write_error;
  try {
    run();
  } catch (...) {
    write_error = std::current_exception();
  }
  Agree(comm_, write_error);
}

void RoundPipeline::Finish() {
  for (int half = 0; half < rounds_.halves(); ++half) WaitFor(half);
  if (rounds_.overlap) Agree(comm_, io_error_);
}

}  // namespace hzio::mpi
