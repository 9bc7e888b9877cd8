// `hzio read`: a box query at a resolution into a .npy (numpy shape as OpenVisus returns it) or a
// raw file (design.md §3). Large results are read and written in slabs of the slowest axis, so
// memory stays bounded whatever the output size.
#include <algorithm>
#include <cstdio>

#include "cli.h"
#include "hzio/access/dataset.h"
#include "hzio/util/error.h"
#include "hzio/util/npy.h"
#include "hzio/util/progress.h"
#include "hzio/util/strings.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio read DATASET [--field NAME] [--time T] [--box x0:x1,y0:y1[,z0:z1]] [--level H]\n"
    "                 -o OUT.npy|OUT.raw [--threads N] [--cache-dir DIR | --no-cache]\n"
    "\n"
    "Reads samples of a dataset (a .idx path or URL, below).\n"
    "\n"
    "  --field NAME   field to read (default: the first)\n"
    "  --time T       timestep (default: the dataset's first)\n"
    "  --box BOX      absolute logic coordinates, upper bounds excluded (default: the whole box)\n"
    "  --level H      levels 0..H (default: maxh, full resolution); coarser levels return the\n"
    "                 regular sub-grid of stride 2^k on each axis (idx-format.md §3.4)\n"
    "  -o, --output   OUT.npy: numpy array of shape (nz, ny, nx[, c]) for 3-D, (ny, nx[, c]) for\n"
    "                 2-D, as OpenVisus's db.read returns it; any other name: raw samples, x fastest\n"
    "  --threads N    decode threads (default: all cores)\n"
    "  --slab-mb M    results larger than this many MiB (default 64) are read and written in\n"
    "                 slabs of about that size (up to 4x, to hold whole blocks)\n";

constexpr int64_t kDefaultSlabMiB = 64;  // measured: smaller slabs stay in cache, as fast as one piece

// Raw output: the same bytes as the .npy data part, no header; removed unless finished.
class RawFile {
 public:
  explicit RawFile(std::string path) : path_(std::move(path)), file_(std::fopen(path_.c_str(), "wb")) {
    Check(file_ != nullptr, ErrorCode::kIo, "cannot create " + path_);
  }
  ~RawFile() {
    if (file_) {
      std::fclose(file_);
      std::remove(path_.c_str());
    }
  }
  void Write(const uint8_t* data, int64_t size) {
    Check(std::fwrite(data, 1, static_cast<size_t>(size), file_) == static_cast<size_t>(size), ErrorCode::kIo,
          "cannot write " + path_);
  }
  void Finish() {
    std::FILE* f = std::exchange(file_, nullptr);
    if (std::fclose(f) != 0) {
      std::remove(path_.c_str());
      throw Error(ErrorCode::kIo, "cannot write " + path_);
    }
  }

 private:
  std::string path_;
  std::FILE* file_;
};

}  // namespace

int RunRead(int argc, char** argv) {
  Args args("read", std::string(kUsage) + kCacheHelp + "\n" + kDatasetHelp);
  args.Option("--field").Option("--time").Option("--box").Option("--level").Option("--output", "-o").Option("--threads").Option("--slab-mb");
  AddCacheOptions(args);
  if (!args.Parse(argc, argv, 1, 1, "DATASET")) return 0;
  const std::optional<std::string> out = args.Get("--output");
  if (!out) throw args.Usage("missing -o OUT.npy|OUT.raw");

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
  const int64_t slab_bytes = args.GetInt("--slab-mb", 1, 1 << 20).value_or(kDefaultSlabMiB) << 20;
  OpenOptions options;
  options.threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));
  ReadCacheOptions(args, options);

  const std::string& source = args.positionals()[0];
  std::shared_ptr<Dataset> dataset = OpenDataset(source, options);
  const Dataset::Resolved resolved = dataset->Resolve(query);
  const Field& field = dataset->header().fields[static_cast<size_t>(resolved.field)];
  const DType dtype = field.dtype;
  const Grid& grid = resolved.grid;
  const int slow = grid.dims() - 1;
  const bool npy = out->size() >= 4 && ToLower(out->substr(out->size() - 4)) == ".npy";

  std::optional<NpyWriter> npy_file;
  std::optional<RawFile> raw_file;
  if (npy) npy_file.emplace(*out, dtype.Scalar().NumpyDescr(), DimsToNpyShape(grid.count, dtype.components()));
  else raw_file.emplace(*out);
  auto write = [&](const uint8_t* data, int64_t size) {
    if (npy_file) npy_file->Write(data, size);
    else raw_file->Write(data, size);
  };

  const int64_t total_bytes = dtype.BytesFor(grid.NumSamples());
  const int64_t row_samples = grid.NumSamples() / std::max<int64_t>(1, grid.count[slow]);
  const int64_t row_bytes = dtype.BytesFor(row_samples);
  // Slabs only when the result is large and rows stay byte aligned (sub-byte dtypes: one piece).
  const bool whole = total_bytes <= slab_bytes || (row_samples * dtype.components() * dtype.bits()) % 8 != 0;
  if (whole) {
    BoxResult result = dataset->Read(query);
    write(result.data.data(), result.data.ByteSize());
  } else {
    // Slabs are a power of two of rows high and start at multiples of that height. Block extents
    // are powers of two too, so a block no taller than a slab lies in one slab and is read
    // whole, once; slabs grow (up to 4x --slab-mb) to the height of the query level's blocks,
    // which hold most of the data, so that no block of that level is decoded twice.
    const BlockLayout& layout = dataset->layout();
    const int h = resolved.levels.to;
    const int64_t stride = grid.stride[slow];
    int64_t span = stride;  // logic rows
    while (span * 2 / stride * row_bytes <= slab_bytes && span < (int64_t{1} << 40)) span *= 2;
    if (h > layout.bits_per_block()) {
      const Grid block = layout.BlockGrid(uint64_t{1} << (h - layout.bits_per_block() - 1));
      const int64_t height = block.count[slow] * block.stride[slow];
      if (height > span && height / stride * row_bytes <= 4 * slab_bytes) span = height;
    }
    const int64_t max_rows = std::min(span / stride + 1, grid.count[slow]);
    std::vector<uint8_t> buffer(static_cast<size_t>(max_rows * row_bytes));
    ProgressBar progress("read", total_bytes, ProgressBar::Unit::kBytes);
    for (int64_t first = 0; first < grid.count[slow];) {
      const int64_t at = grid.origin[slow] + first * stride;
      const int64_t edge = (at / span + 1) * span;
      const int64_t rows = std::min((edge - at + stride - 1) / stride, grid.count[slow] - first);
      Dataset::Resolved slab = resolved;
      slab.grid.origin[slow] = at;
      slab.grid.count[slow] = rows;
      slab.box = resolved.box.Intersect(slab.grid.LogicBox());
      dataset->ReadInto(slab, buffer.data());
      write(buffer.data(), rows * row_bytes);
      progress.Add(rows * row_bytes);
      first += rows;
    }
  }
  if (npy_file) npy_file->Finish();
  else raw_file->Finish();

  std::printf("wrote %s: %s %s, field %s, time %lld, level %d, grid box %s stride %s\n", out->c_str(),
              FormatShape(DimsToNpyShape(grid.count, dtype.components())).c_str(), dtype.ToString().c_str(),
              field.name.c_str(), static_cast<long long>(resolved.time), resolved.levels.to,
              grid.LogicBox().ToRangesString().c_str(), grid.stride.ToString().c_str());
  return 0;
}

}  // namespace hzio::cli
