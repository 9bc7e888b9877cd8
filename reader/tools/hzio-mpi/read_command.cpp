// `hzio-mpi read`: parallel restart read through hzio::mpi::ParallelReader, with --verify
// against the synthetic formula of design.md §4.
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "hzio/mpi/collective.h"
#include "hzio/util/decomposition.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/access/synthetic.h"
#include "hzio/util/error.h"
#include "json_report.h"

namespace hzio_mpi_tool {

using namespace hzio;
using namespace hzio::mpi;

namespace {

// Adds one field's read statistics into the running total.
void Accumulate(IoStats& total, const IoStats& s) {
  total.seconds += s.seconds;
  total.max.io += s.max.io;
  total.max.aggregate += s.max.aggregate;
  total.max.hz += s.max.hz;
  total.max.restructure += s.max.restructure;
  total.data_bytes += s.data_bytes;
  total.file_bytes += s.file_bytes;
  total.aggregators = s.aggregators;
  if (total.per_aggregator.size() != s.per_aggregator.size()) {
    total.per_aggregator = s.per_aggregator;
  } else {
    for (size_t i = 0; i < s.per_aggregator.size(); ++i) total.per_aggregator[i].bytes += s.per_aggregator[i].bytes;
  }
}

}  // namespace

int RunRead(MPI_Comm comm, int argc, char** argv) {
  const Args args(argc, argv, 2, {"grid", "box", "level", "field", "time", "mode", "aggregators"}, {"verify", "json"});
  Check(args.positional().size() == 1, ErrorCode::kInvalidArgument, "read needs exactly one IN.idx");
  const std::string mode = args.Get("mode", "two-phase");
  Check(mode == "two-phase" || mode == "one-phase", ErrorCode::kInvalidArgument,
        "--mode must be two-phase or one-phase, not '" + mode + "'");
  ReadOptions options;
  options.mode = mode == "two-phase" ? ReadMode::kTwoPhase : ReadMode::kOnePhase;
  options.aggregators = args.GetInt("aggregators", 0);
  const int rank = CommRank(comm), ranks = CommSize(comm);

  ParallelReader reader(comm, args.positional()[0], options);
  const IdxHeader& header = reader.header();
  const int dims = header.dims();
  const Box box = args.Has("box") ? Box::ParseRanges(args.Get("box")) : header.box;
  Check(box.dims() == dims, ErrorCode::kInvalidArgument, "--box must have " + std::to_string(dims) + " ranges");
  const Point grid = args.Has("grid") ? ParseGrid(args.Get("grid"), dims) : DefaultGrid(ranks, dims);
  Check(grid.Product() == ranks, ErrorCode::kInvalidArgument,
        "--grid " + grid.ToString() + " has " + std::to_string(grid.Product()) + " cells for " +
            std::to_string(ranks) + " ranks");
  const int level = static_cast<int>(args.GetInt("level", header.maxh()));
  const int64_t time = args.GetInt("time", header.time.Default());
  std::vector<int> fields;
  if (args.Has("field")) {
    fields.push_back(header.FieldIndex(args.Get("field")));
  } else {
    for (size_t f = 0; f < header.fields.size(); ++f) fields.push_back(static_cast<int>(f));
  }

  std::vector<Box> mine;
  const Box cell = GridCell(box, grid, rank);
  if (reader.HasSamples(cell, level)) mine.push_back(cell);  // coarse levels may leave a cell empty
  MPI_Barrier(comm);
  IoStats total;
  bool ok = true;
  for (int f : fields) {
    const std::vector<BoxData> data = reader.Read(f, time, level, mine);
    Accumulate(total, reader.stats());
    if (args.Has("verify"))
      for (const BoxData& d : data)
        ok = ok && FirstSyntheticMismatch(header.fields[static_cast<size_t>(f)].dtype, f, time, d.grid, d.bytes.data()) < 0;
  }
  std::optional<bool> verified;
  if (args.Has("verify")) {
    int local = ok ? 1 : 0, all = 0;
    MpiCheck(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce(verify)");
    verified = all == 1;
  }
  if (rank == 0) {
    const std::string report = args.Has("json") ? JsonReport(ranks, total, true, verified) : TextReport(ranks, total, true, verified);
    std::printf("%s\n", report.c_str());
  }
  return verified && !*verified ? 3 : 0;
}

}  // namespace hzio_mpi_tool
