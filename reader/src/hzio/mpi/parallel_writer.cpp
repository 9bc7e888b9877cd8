#include "hzio/mpi/parallel_writer.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "hzio/access/dataset_writer.h"
#include "hzio/format/block_files.h"
#include "hzio/hz/block_layout.h"
#include "hzio/mpi/box_copy.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/file_portions.h"
#include "hzio/mpi/hz_encode.h"
#include "hzio/util/strings.h"

namespace hzio::mpi {

namespace {

std::string IdxStem(const std::string& idx_path) { return std::filesystem::path(idx_path).stem().string(); }
std::string IdxDir(const std::string& idx_path) {
  const std::string dir = std::filesystem::path(idx_path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Phase 3 (put side): sends every hz run of one field of a cell to the aggregators.
void PutRuns(RmaWindow& window, const FileAggregation& plan, int bpb, int field, int64_t sample_bytes,
             const std::vector<LevelBuffer>& levels) {
  for (const LevelBuffer& lb : levels) {
    for (const HzRun& run : lb.runs) {
      uint64_t hz = run.hz;
      int64_t left = run.count, offset = run.offset;
      while (left > 0) {
        const int64_t agg = plan.AggregatorOfBlock(hz >> bpb);
        const Span blocks = plan.Blocks(agg);
        const uint64_t first_hz = static_cast<uint64_t>(blocks.begin) << bpb;
        const uint64_t end_hz = static_cast<uint64_t>(blocks.end) << bpb;
        const int64_t n = std::min<int64_t>(left, static_cast<int64_t>(end_hz - hz));
        window.Put(lb.bytes.data() + offset * sample_bytes, n * sample_bytes, plan.Rank(agg),
                   plan.FieldBase(agg, field) + static_cast<int64_t>(hz - first_hz) * sample_bytes);
        hz += static_cast<uint64_t>(n);
        left -= n;
        offset += n;
      }
    }
  }
}

}  // namespace

ParallelWriter::ParallelWriter(MPI_Comm comm, std::string idx_path, IdxHeader header, WriteOptions options)
    : comm_(comm), idx_path_(std::move(idx_path)), header_(std::move(header)), options_(options) {
  header_.Validate(IdxStem(idx_path_));
}

void ParallelWriter::Add(int field, int64_t time, const Box& box, const uint8_t* data) {
  registered_.push_back(Registered{time, Piece{field, box, data}});
}

IoStats ParallelWriter::Write() {
  const double t_start = MPI_Wtime();
  const int rank = CommRank(comm_), ranks = CommSize(comm_);
  IoStats stats;
  const int nfields = static_cast<int>(header_.fields.size());

  // Every rank checks its own boxes and that its header is rank 0's; then rank 0 prepares the
  // destination (only once everybody agreed the input is good).
  const std::string text = header_.ToText();
  std::string root_text = text;
  int64_t text_size = static_cast<int64_t>(text.size());
  MpiCheck(MPI_Bcast(&text_size, 1, MPI_INT64_T, 0, comm_), "MPI_Bcast(header size)");
  root_text.resize(static_cast<size_t>(text_size));
  MpiCheck(MPI_Bcast(root_text.data(), CheckedInt(text_size, "header size"), MPI_CHAR, 0, comm_), "MPI_Bcast(header)");
  int64_t local_data_bytes = 0;
  Collectively(comm_, [&] {
    Check(root_text == text, ErrorCode::kInvalidArgument, "the header given to this rank differs from rank 0's");
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
    }
  });
  Collectively(comm_, [&] {
    if (rank != 0) return;
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(idx_path_, ec)) {
      Check(options_.overwrite, ErrorCode::kInvalidArgument,
            idx_path_ + " already exists (pass overwrite to replace it)");
      fs::remove(idx_path_, ec);  // first, so a failure below never leaves a stale, complete-looking .idx
      Check(!ec, ErrorCode::kIo, "cannot remove " + idx_path_ + ": " + ec.message());
    }
    const fs::path parent = fs::path(idx_path_).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    Check(!ec, ErrorCode::kIo, "cannot create directory " + parent.string() + ": " + ec.message());
  });

  // Geometry shared by all timesteps.
  const BlockLayout layout(header_.bitmask, header_.bits_per_block);
  const BlockFiles files(header_, IdxDir(idx_path_));
  const int dims = header_.dims(), bpb = header_.bits_per_block;
  Point extent(dims);
  for (const Registered& r : registered_)
    for (int d = 0; d < dims; ++d) extent[d] = std::max(extent[d], r.piece.box.p2[d] - r.piece.box.p1[d]);
  MpiCheck(MPI_Allreduce(MPI_IN_PLACE, extent.v.data(), dims, MPI_INT64_T, MPI_MAX, comm_), "MPI_Allreduce(extent)");
  const Point cell = ImposedGrid::ChooseCellSize(options_.restructure, extent, header_.bitmask);
  const ImposedGrid grid(header_.bitmask, header_.box, cell);
  const HzEncoder encoder(header_.bitmask, grid.cell_size());
  const FileAggregation plan(header_, options_.aggregators, ranks);
  const int64_t my_agg = AggregatorOfRank(rank, plan.aggregators(), ranks);

  // The timesteps anyone registered: every rank's distinct timesteps, gathered (ranks x
  // timesteps values, each rank's list is tiny), sorted.
  std::vector<int64_t> times;
  {
    std::vector<int64_t> local;
    for (const Registered& r : registered_) local.push_back(r.time);
    std::sort(local.begin(), local.end());
    local.erase(std::unique(local.begin(), local.end()), local.end());
    int count = CheckedInt(static_cast<int64_t>(local.size()), "timesteps");
    std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
    MpiCheck(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_), "MPI_Allgather(timesteps)");
    int64_t total = 0;
    for (int r = 0; r < ranks; ++r) {
      displs[static_cast<size_t>(r)] = CheckedInt(total, "timesteps");
      total += counts[static_cast<size_t>(r)];
    }
    times.resize(static_cast<size_t>(total));
    MpiCheck(MPI_Allgatherv(local.data(), count, MPI_INT64_T, times.data(), counts.data(), displs.data(), MPI_INT64_T,
                            comm_),
             "MPI_Allgatherv(timesteps)");
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
  }

  RmaWindow window(comm_, my_agg >= 0 ? plan.BufferBytes(my_agg) : 0);
  uint8_t* const agg_buffer = window.data();
  int64_t aggregator_bytes = 0;

  for (const int64_t time : times) {
    std::vector<Piece> pieces;
    for (const Registered& r : registered_)
      if (r.time == time) pieces.push_back(r.piece);

    // Phase 1: restructure.
    double t0 = MPI_Wtime();
    std::vector<RegularBox> cells = Restructure(comm_, grid, header_.fields, pieces);
    stats.local.restructure += MPI_Wtime() - t0;

    // Phase 2: HZ encoding, cell by cell and field by field. A failure here is agreed on together
    // with the puts (the failing rank puts nothing but still takes part in the fences).
    t0 = MPI_Wtime();
    struct Encoded { int field; std::vector<LevelBuffer> levels; };
    std::vector<Encoded> encoded;
    std::exception_ptr error;
    try {
      for (RegularBox& rb : cells) {
        for (int f = 0; f < nfields; ++f) {
          const uint8_t* data = rb.Data(f);
          if (!data) continue;
          encoded.push_back(Encoded{f, encoder.Encode(rb.box, data, header_.fields[static_cast<size_t>(f)].dtype.SampleBytes(),
                                                      header_.box)});
          rb.Release(f);  // the cell copy is no longer needed
        }
      }
    } catch (...) {
      error = std::current_exception();
    }
    cells.clear();
    stats.local.hz += MPI_Wtime() - t0;

    // Phase 3: one-sided puts into the aggregators' buffers.
    t0 = MPI_Wtime();
    if (my_agg >= 0) {
      for (int f = 0; f < nfields; ++f) {
        const int64_t bytes = plan.Blocks(my_agg).size() * plan.block_bytes(f);
        const std::vector<uint8_t> fill = DefaultSample(header_.fields[static_cast<size_t>(f)]);
        FillSamples(agg_buffer + plan.FieldBase(my_agg, f), bytes / static_cast<int64_t>(fill.size()), fill);
      }
    }
    window.Fence();
    if (!error) {
      try {
        for (const Encoded& e : encoded)
          PutRuns(window, plan, bpb, e.field, header_.fields[static_cast<size_t>(e.field)].dtype.SampleBytes(), e.levels);
      } catch (...) {
        error = std::current_exception();
      }
    }
    window.Fence();
    encoded.clear();
    Agree(comm_, error);
    stats.local.aggregate += MPI_Wtime() - t0;

    // I/O: aggregators encode and write their files (or parts of shared files).
    t0 = MPI_Wtime();
    aggregator_bytes += WriteTimestepFiles(comm_, header_, layout, files, plan, my_agg, agg_buffer, time);
    stats.local.io += MPI_Wtime() - t0;
  }

  // Metadata last: one rank, atomically, only after every rank's files are written.
  Collectively(comm_, [&] {
    if (rank == 0) WriteFileAtomically(idx_path_, text);
  });

  stats.aggregators = plan.aggregators();
  stats.local_aggregator_bytes = aggregator_bytes;
  stats.cell_size = grid.cell_size();
  FinishStats(comm_, stats, MPI_Wtime() - t_start, local_data_bytes, aggregator_bytes,
              [&](int64_t a) { return plan.Rank(a); });
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
  h.Validate(IdxStem(idx_path));
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
