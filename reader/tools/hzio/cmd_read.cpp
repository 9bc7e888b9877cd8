// `hzio read`: a box query at a resolution into a .npy (numpy shape as OpenVisus returns it) or a
// raw file (design.md §3). Large results are read and written in slabs of the slowest axis, each
// written while the next is read (access/slab_reader.h), so memory stays bounded whatever the
// output size. The output never damages anything
// (storage/output_file.h) and may not be a part of the dataset read (access/dataset_paths.h).
#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "cli.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/access/slab_reader.h"
#include "hzio/format/hzio_keys.h"
#include "hzio/storage/output_file.h"
#include "hzio/util/error.h"
#include "hzio/util/npy.h"
#include "hzio/util/progress.h"
#include "hzio/util/strings.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio read DATASET [--field NAME] [--time T] [--box x0:x1,y0:y1[,z0:z1]] [--level H]\n"
    "                 -o OUT.npy|OUT.raw|- [--npy] [--threads N] [--cache-dir DIR | --no-cache]\n"
    "\n"
    "Reads samples of a dataset (a .idx path or URL, below).\n"
    "\n"
    "  --field NAME   field to read (default: the first)\n"
    "  --time T       timestep (default: the dataset's first)\n"
    "  --box BOX      absolute logic coordinates, upper bounds excluded (default: the whole box)\n"
    "  --level H      levels 0..H (default: maxh, full resolution); coarser levels return the\n"
    "                 regular sub-grid of stride 2^k on each axis (idx-format.md §3.4)\n"
    "  -o, --output   OUT.npy: numpy array of shape (nz, ny, nx[, c]) for 3-D, (ny, nx[, c]) for\n"
    "                 2-D, as OpenVisus's db.read returns it; any other name: raw samples, x fastest;\n"
    "                 - : standard output (raw, or .npy with --npy). A regular file is written\n"
    "                 through a temporary name and renamed at the end (a failure leaves the old\n"
    "                 file as it was); a device or FIFO (/dev/null, a pipe) is written in place.\n"
    "                 The dataset's own files and directories are refused\n"
    "  --npy          write .npy whatever the output's name (for -o -)\n"
    "  --threads N    decode threads (default: all cores)\n"
    "  --slab-mb M    results larger than this many MiB (default 64) are read and written in\n"
    "                 slabs of about that size, grown to hold whole blocks up to 4x M (by\n"
    "                 default up to 1024 MiB); two slabs are in memory at once, one written\n"
    "                 while the next is read\n";

constexpr int64_t kDefaultSlabMiB = 64;  // measured: smaller slabs stay in cache, as fast as one piece
// Without --slab-mb, slabs grow this far to hold the query level's blocks whole: 2048^3 float32
// at full resolution has 64-plane (1 GiB) blocks; 4-plane slabs read each 16 times (2.4x slower).
constexpr int64_t kDefaultMaxSlabMiB = 1024;
constexpr int64_t kSlabGrowth = 4;  // with --slab-mb M: up to 4 M
constexpr int kChangedRetries = 3;       // a writer committing during the read: start over

// Reads the query into `out` (header first for .npy), slab by slab when large.
void ReadInto(Dataset& dataset, const Dataset::Resolved& resolved, bool npy, int64_t slab_bytes,
              int64_t max_slab_bytes, OutputFile& out) {
  const DType dtype = dataset.header().fields[static_cast<size_t>(resolved.field)].dtype;
  const Grid& grid = resolved.grid;
  if (npy) {
    const std::string header = EncodeNpyHeader(dtype.Scalar().NumpyDescr(), DimsToNpyShape(grid.count, dtype.components()));
    out.Write(reinterpret_cast<const uint8_t*>(header.data()), static_cast<int64_t>(header.size()));
  }
  // Slab by slab, each written while the next is read (access/slab_reader.h).
  const int64_t total_bytes = dtype.BytesFor(grid.NumSamples());
  std::optional<ProgressBar> progress;
  if (total_bytes > slab_bytes) progress.emplace("read", total_bytes, ProgressBar::Unit::kBytes);
  ReadInSlabs(dataset, resolved, slab_bytes, max_slab_bytes, [&](const uint8_t* data, int64_t size) {
    out.Write(data, size);
    if (progress) progress->Add(size);
  });
  if (progress) progress->Finish();
}

}  // namespace

int RunRead(int argc, char** argv) {
  Args args("read", std::string(kUsage) + kCacheHelp + "\n" + kDatasetHelp);
  args.Option("--field").Option("--time").Option("--box").Option("--level").Option("--output", "-o").Option("--threads").Option("--slab-mb");
  AddCacheOptions(args);
  args.Flag("--npy");
  if (!args.Parse(argc, argv, 1, 1, "DATASET")) return 0;
  const std::optional<std::string> out = args.Get("--output");
  if (!out) throw args.Usage("missing -o OUT.npy|OUT.raw|-");

  BoxQuery query;
  query.field = args.Get("--field").value_or("");
  if (args.Has("--time")) query.time = args.GetInt("--time", INT64_MIN, INT64_MAX);
  if (args.Has("--level")) query.level = static_cast<int>(*args.GetInt("--level", 0, 62));
  if (std::optional<std::string> box = args.Get("--box")) {
    try {
      query.box = Box::ParseRanges(*box);
    } catch (const Error& e) {
      throw args.Usage("option '--box': " + std::string(e.what()));
    }
  }
  const std::optional<int64_t> slab_mb = args.GetInt("--slab-mb", 1, 1 << 20);
  const int64_t slab_bytes = slab_mb.value_or(kDefaultSlabMiB) << 20;
  const int64_t max_slab_bytes = slab_mb ? kSlabGrowth * slab_bytes : kDefaultMaxSlabMiB << 20;
  OpenOptions options;
  options.threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));
  // The result is read and written in slabs (memory: two slabs), so its size has no limit here.
  options.max_query_bytes = std::numeric_limits<int64_t>::max();
  ReadCacheOptions(args, options);
  const std::string source = args.positionals()[0];
  const bool npy = args.Has("--npy") || (out->size() >= 4 && ToLower(out->substr(out->size() - 4)) == ".npy");

  std::shared_ptr<Dataset> dataset = OpenDataset(source, options);
  if (*out != "-" && !IsRemoteUrl(source)) CheckNotPartOfDataset(*out, dataset->header(), source);
  Dataset::Resolved resolved = dataset->Resolve(query);
  const Field field = dataset->header().fields[static_cast<size_t>(resolved.field)];
  if (const std::optional<WrittenParts> written = WrittenParts::Of(dataset->header());
      written && !written->Contains(field.name, resolved.time))
    PrintNote("field '" + field.name + "' at timestep " + std::to_string(resolved.time) + " of " + source +
              " was declared but never written: its samples are the default value (" +
              std::to_string(field.default_value) + ")");

  OutputFile output(*out);
  for (int attempt = 1;; ++attempt) {
    try {
      ReadInto(*dataset, resolved, npy, slab_bytes, max_slab_bytes, output);
      break;
    } catch (const Error& e) {
      // A writer committed a new version while we read (TEAM contract 3): read the new one whole.
      if (e.code() != ErrorCode::kChanged || attempt >= kChangedRetries || !output.CanRestart()) throw;
      PrintNote(std::string(e.what()) + "; reading it again");
      output.Restart();
      dataset = OpenDataset(source, options);
      resolved = dataset->Resolve(query);
    }
  }
  output.Finish();

  const Grid& grid = resolved.grid;
  // The summary goes to stderr when the samples go to stdout.
  std::fprintf(output.is_stdout() ? stderr : stdout, "wrote %s: %s %s, field %s, time %lld, level %d, grid box %s stride %s\n",
               output.is_stdout() ? "standard output" : out->c_str(),
               FormatShape(DimsToNpyShape(grid.count, field.dtype.components())).c_str(), field.dtype.ToString().c_str(),
               field.name.c_str(), static_cast<long long>(resolved.time), resolved.levels.to,
               grid.LogicBox().ToRangesString().c_str(), grid.stride.ToString().c_str());
  return 0;
}

}  // namespace hzio::cli
