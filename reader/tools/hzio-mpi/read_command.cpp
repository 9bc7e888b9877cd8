// `hzio-mpi read`: parallel restart read through hzio::mpi::ParallelReader, with --verify
// against the synthetic formula of design.md §4 and --out to keep what was read as .npy files.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <string>
#include <vector>

#include "args.h"
#include "commands.h"
#include "hzio/mpi/collective.h"
#include "hzio/util/decomposition.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/util/strings.h"
#include "hzio/access/synthetic.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"
#include "json_report.h"
#include "npy_output.h"

namespace hzio_mpi_tool {

using namespace hzio;
using namespace hzio::mpi;

namespace {

// Default of --results-budget: the bytes of results a rank holds at once (the fields of one read).
constexpr int64_t kResultsBudget = int64_t{1} << 30;

// Adds one read's statistics into the running total.
void Accumulate(IoStats& total, const IoStats& s) {
  total.seconds += s.seconds;
  total.max.io += s.max.io;
  total.max.aggregate += s.max.aggregate;
  total.max.hz += s.max.hz;
  total.max.restructure += s.max.restructure;
  total.data_bytes += s.data_bytes;
  total.file_bytes += s.file_bytes;
  total.aggregators = s.aggregators;
  total.rounds = std::max(total.rounds, s.rounds);
  total.overlapped = total.overlapped || s.overlapped;
  total.hz_window = total.hz_window || s.hz_window;
  total.local_threads = std::max(total.local_threads, s.local_threads);
  if (!s.note.empty()) total.note = s.note;
  if (total.per_aggregator.size() != s.per_aggregator.size()) {
    total.per_aggregator = s.per_aggregator;
  } else {
    for (size_t i = 0; i < s.per_aggregator.size(); ++i) total.per_aggregator[i].bytes += s.per_aggregator[i].bytes;
  }
}

// `--level`: H, a list H1,H2,..., or "all" (0..maxh); default maxh.
std::vector<int> ParseLevels(const std::string& text, int maxh) {
  std::vector<int> levels;
  if (text.empty()) return {maxh};
  if (text == "all") {
    for (int h = 0; h <= maxh; ++h) levels.push_back(h);
    return levels;
  }
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string word = text.substr(at, comma - at);
    const int64_t h = ParseInt64(word, "--level");
    Check(h >= 0 && h <= maxh, ErrorCode::kInvalidArgument,
          "--level '" + word + "' is not a level 0.." + std::to_string(maxh) + " (or a list of them, or all)");
    levels.push_back(static_cast<int>(h));
    at = comma + 1;
  }
  return levels;
}

// `--out` for one field at one level: {field} and {level} in the template replaced.
std::string OutPath(std::string path, const std::string& field, int level) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{field}", field}, {"{level}", std::to_string(level)}})
    for (size_t at = path.find(key); at != std::string::npos; at = path.find(key, at + value.size()))
      path.replace(at, key.size(), value);
  return path;
}

// The fields read together: consecutive groups whose results on the busiest rank stay within
// `budget` bytes (one field at least). One read of several fields has one plan and passes over
// each file once, where a read per field passes over every file once per field (bench/mpi/RESULTS.md,
// "hzio-mpi read"). `local_bytes`: this rank's result bytes per field; the groups agree on every rank.
std::vector<std::vector<int>> FieldGroups(MPI_Comm comm, const std::vector<int>& fields,
                                          std::vector<int64_t> local_bytes, int64_t budget) {
  const std::vector<int64_t> bytes = AgreeAndMax(comm, std::move(local_bytes), nullptr);
  std::vector<std::vector<int>> groups;
  int64_t held = 0;
  for (size_t k = 0; k < fields.size(); ++k) {
    if (groups.empty() || held + bytes[k] > budget) {
      groups.emplace_back();
      held = 0;
    }
    groups.back().push_back(fields[k]);
    held += bytes[k];
  }
  return groups;
}

}  // namespace

int RunRead(MPI_Comm comm, int argc, char** argv) {
  const Args args(argc, argv, 2,
                  {"grid", "box", "level", "field", "time", "mode", "aggregators", "out", "memory-budget",
                   "results-budget", "threads"},
                  {"verify", "json", "overlap", "direct-io", "no-direct-io", "no-owner-reads"});
  Check(args.positional().size() == 1, ErrorCode::kInvalidArgument, "read needs exactly one IN.idx");
  const std::string mode = args.Get("mode", "two-phase");
  Check(mode == "two-phase" || mode == "one-phase", ErrorCode::kInvalidArgument,
        "--mode must be two-phase or one-phase, not '" + mode + "'");
  ReadOptions options;
  options.mode = mode == "two-phase" ? ReadMode::kTwoPhase : ReadMode::kOnePhase;
  options.aggregators = args.GetInt("aggregators", 0);
  if (args.Has("memory-budget")) options.memory_budget = ParseByteSize(args.Get("memory-budget"), "--memory-budget");
  options.overlap = args.Has("overlap");
  Check(!(args.Has("direct-io") && args.Has("no-direct-io")), ErrorCode::kInvalidArgument,
        "--direct-io and --no-direct-io contradict each other");
  if (args.Has("direct-io")) options.direct_reads = DirectReads::kAlways;
  if (args.Has("no-direct-io")) options.direct_reads = DirectReads::kNever;
  options.owner_reads = !args.Has("no-owner-reads");
  options.placing_threads = ThreadsOption(args);
  const int64_t results_budget =
      args.Has("results-budget") ? ParseByteSize(args.Get("results-budget"), "--results-budget") : kResultsBudget;
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
  const std::vector<int> levels = ParseLevels(args.Get("level"), header.maxh());
  const int64_t time = args.GetInt("time", header.time.Default());
  std::vector<int> fields;
  if (args.Has("field")) {
    fields.push_back(header.FieldIndex(args.Get("field")));
  } else {
    for (size_t f = 0; f < header.fields.size(); ++f) fields.push_back(static_cast<int>(f));
  }
  const std::string out = args.Get("out");
  Check(out.empty() || fields.size() == 1 || out.find("{field}") != std::string::npos, ErrorCode::kInvalidArgument,
        "--out " + out + " must name the field ({field}) when several fields are read");
  Check(out.empty() || levels.size() == 1 || out.find("{level}") != std::string::npos, ErrorCode::kInvalidArgument,
        "--out " + out + " must name the level ({level}) when several levels are read");

  const Box cell = GridCell(box, grid, rank);
  MPI_Barrier(comm);
  IoStats total;
  total.rounds = 0;  // the most of any read (a read without a window makes none)
  bool ok = true;
  for (const int level : levels) {
    Check(out.empty() || reader.HasSamples(box, level), ErrorCode::kOutOfRange,
          "box " + box.ToRangesString() + " holds no sample at level " + std::to_string(level));
    std::vector<Box> mine;
    if (reader.HasSamples(cell, level)) mine.push_back(cell);  // coarse levels may leave a cell empty
    const int64_t samples = mine.empty() ? 0 : reader.ResultGrid(cell, level).NumSamples();
    std::vector<int64_t> result_bytes;
    for (int f : fields) result_bytes.push_back(header.fields[static_cast<size_t>(f)].dtype.BytesFor(samples));
    for (const std::vector<int>& group : FieldGroups(comm, fields, result_bytes, results_budget)) {
      const std::vector<std::vector<BoxData>> data = reader.Read(group, time, level, mine);
      Accumulate(total, reader.stats());
      for (size_t k = 0; k < group.size(); ++k) {
        const int f = group[k];
        const DType& dtype = header.fields[static_cast<size_t>(f)].dtype;
        if (args.Has("verify"))
          for (const BoxData& d : data[k]) ok = ok && FirstSyntheticMismatch(dtype, f, time, d.grid, d.bytes.data()) < 0;
        if (!out.empty())
          WriteNpyCollectively(comm, OutPath(out, header.fields[static_cast<size_t>(f)].name, level),
                               reader.ResultGrid(box, level), dtype, data[k].empty() ? nullptr : &data[k][0]);
      }
    }
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
