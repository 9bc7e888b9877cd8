// `hzio-mpi write`: S3D-IO-like synthetic checkpoint through hzio::mpi::ParallelWriter.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "hzio/mpi/collective.h"
#include "hzio/util/decomposition.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/access/synthetic.h"
#include "hzio/util/strings.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"
#include "json_report.h"

namespace hzio_mpi_tool {

using namespace hzio;
using namespace hzio::mpi;

namespace {

constexpr const char* kDefaultFields = "pressure:float64,temperature:float64,velocity:float64[3],species:float64[11]";

Point ParseDims(const std::string& text) {
  const std::vector<std::string> parts = Split(text, ',');
  Check(parts.size() >= 1 && parts.size() <= 3, ErrorCode::kInvalidArgument, "--dims '" + text + "' must be X,Y[,Z]");
  Point p(static_cast<int>(parts.size()));
  for (size_t d = 0; d < parts.size(); ++d) {
    p[static_cast<int>(d)] = ParseInt64(parts[d], "--dims");
    Check(p[static_cast<int>(d)] >= 1, ErrorCode::kInvalidArgument, "--dims '" + text + "' must be positive");
  }
  return p;
}

}  // namespace

int RunWrite(MPI_Comm comm, int argc, char** argv) {
  const Args args(argc, argv, 2,
                  {"dims", "grid", "blocks-per-rank", "fields", "timesteps", "bitsperblock", "blocksperfile",
                   "restructure", "aggregators", "compression", "memory-budget", "threads"},
                  {"json", "sync", "no-direct-io", "no-overlap", "overlap", "wait", "pidx-compatible"});
  Check(args.positional().size() == 1, ErrorCode::kInvalidArgument, "write needs exactly one OUT.idx");
  Check(args.Has("dims"), ErrorCode::kInvalidArgument, "write needs --dims X,Y[,Z]");
  const std::string out = args.positional()[0];
  const Point dims = ParseDims(args.Get("dims"));
  const int rank = CommRank(comm), ranks = CommSize(comm);
  const Point grid = args.Has("grid") ? ParseGrid(args.Get("grid"), dims.dims) : DefaultGrid(ranks, dims.dims);
  Check(grid.Product() == ranks, ErrorCode::kInvalidArgument,
        "--grid " + grid.ToString() + " has " + std::to_string(grid.Product()) + " cells for " +
            std::to_string(ranks) + " ranks");
  const std::string compression = args.Get("compression", "raw");
  Check(compression == "raw" || compression == "zip" || compression == "lz4", ErrorCode::kInvalidArgument,
        "--compression must be raw, zip or lz4, not '" + compression + "'");
  const int64_t timesteps = args.GetInt("timesteps", 1);
  const std::vector<Field> fields = ParseFieldList(args.Get("fields", kDefaultFields));
  const IdxHeader header = MakeHeader(dims, fields, timesteps, static_cast<int>(args.GetInt("bitsperblock", 0)),
                                      args.GetInt("blocksperfile", 0), compression, out, ranks);

  WriteOptions options;
  options.restructure = RestructureSpec::Parse(args.Get("restructure", "default"), dims.dims);
  options.aggregators = args.GetInt("aggregators", 0);
  if (args.Has("memory-budget")) options.memory_budget = ParseByteSize(args.Get("memory-budget"), "--memory-budget");
  options.overwrite = true;  // a benchmark/restart tool rewrites its output (the old one stays readable until the commit)
  options.sync = args.Has("sync");
  options.direct_io = !args.Has("no-direct-io");
  Check(!(args.Has("overlap") && args.Has("no-overlap")), ErrorCode::kInvalidArgument,
        "give --overlap or --no-overlap, not both");
  if (args.Has("overlap")) options.overlap_io = IoOverlap::kAlways;
  if (args.Has("no-overlap")) options.overlap_io = IoOverlap::kNever;
  options.wait = args.Has("wait");
  options.pidx_compatible = args.Has("pidx-compatible");
  options.encoding_threads = ThreadsOption(args);
  options.notify = [](const std::string& note) { std::fprintf(stderr, "hzio-mpi: note: %s\n", note.c_str()); };

  // Synthetic data (design.md §4) for every piece, field and timestep of this rank.
  const Box domain(Point(dims.dims), dims);
  const std::vector<Box> pieces = RankPieces(domain, grid, args.GetInt("blocks-per-rank", 1), rank);
  std::vector<std::vector<uint8_t>> buffers;
  ParallelWriter writer(comm, out, header, options);
  // Agreed, so a rank that cannot hold its share fails everywhere instead of leaving the others
  // waiting in the write.
  Collectively(comm, [&] {
    int64_t bytes = 0;
    for (const Field& field : fields)
      for (const Box& b : pieces) bytes += field.dtype.BytesFor(b.Size().Product()) * timesteps;
    try {
      for (int64_t t = 0; t < timesteps; ++t) {
        for (size_t f = 0; f < fields.size(); ++f) {
          for (const Box& b : pieces) {
            buffers.emplace_back(static_cast<size_t>(fields[f].dtype.BytesFor(b.Size().Product())));
            FillSynthetic(fields[f].dtype, static_cast<int>(f), t, DenseGrid(b), buffers.back().data());
            writer.Add(static_cast<int>(f), t, b, buffers.back().data());
          }
        }
      }
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::kTooLarge, "the synthetic data of this rank's boxes (" + std::to_string(bytes) +
                                            " bytes) does not fit in memory");
    }
  });
  MPI_Barrier(comm);  // time the write alone
  const IoStats stats = writer.Write();
  if (rank == 0) {
    const std::string report = args.Has("json") ? JsonReport(ranks, stats, false, std::nullopt)
                                                : TextReport(ranks, stats, false, std::nullopt);
    std::printf("%s\n", report.c_str());
  }
  return 0;
}

}  // namespace hzio_mpi_tool
