// `hzio convert`: a .npy or raw array into a new or existing dataset (design.md §3). The input is
// streamed in slabs along its slowest axes (contiguous byte ranges of a C-order file), the next
// slab read while the writer encodes the current one, so memory stays bounded for any input size;
// standard input is read the same way, in order.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

#include "cli.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/util/error.h"
#include "hzio/util/npy.h"
#include "hzio/util/progress.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio convert INPUT OUT.idx [--dims X,Y[,Z] --dtype DTYPE] [--field NAME] [--time T]\n"
    "                    [--compression raw|zip|lz4|png|jpg|zfp] [--layout hzorder|rowmajor]\n"
    "                    [--bitsperblock N] [--blocksperfile N] [--arco SIZE] [--threads N] [--wait] [--sync]\n"
    "\n"
    "Writes an array into a dataset. INPUT is a .npy file (C order, little-endian u1..u8, i1..i8,\n"
    "f4, f8; shape (nz, ny, nx) or (ny, nx)), or raw samples (x fastest) with --dims and --dtype,\n"
    "from a file or from standard input (INPUT '-': a pipe from a generator, so that no copy of\n"
    "the array is kept on disk). Inputs larger than memory are streamed.\n"
    "\n"
    "  --dims X,Y[,Z]   raw input: samples per axis, x first\n"
    "  --dtype DTYPE    raw input: sample type, e.g. float32, uint8[3]. For a .npy input, T[N] says\n"
    "                   that its last axis holds N components: (ny, nx, 3) with uint8[3] is 2-D RGB\n"
    "  --field NAME     field name (default: 'data' for a new dataset, the first field otherwise)\n"
    "  --time T         timestep (default: none for a new dataset, the first declared otherwise)\n"
    "  --threads N      encode threads (default: all cores)\n"
    "  --slab-mb M      input read per step, MiB (default 128; two steps are in memory at once)\n"
    "  --wait           wait while another writer holds the dataset (default: fail at once)\n"
    "  --sync           flush the data to disk before committing (survives a power cut)\n"
    "\n"
    "If OUT.idx does not exist it is created with one field, the bitmask guessed from the dims as\n"
    "OpenVisus does, and the storage options (as `hzio create`): --compression zip (default, as\n"
    "OpenVisus's CreateIdx with data), --layout rowmajor (default, OpenVisus v6), --bitsperblock\n"
    "(default min(maxh, 16)), --blocksperfile (default: one file per timestep below 2 GiB).\n"
    "--arco SIZE (1mb as OpenVisus's create_idx, 512kb, or bytes) writes an ARCO dataset instead:\n"
    "one file per block of at most SIZE bytes, OUT/<time>/<field>/xxxx/xxxx/xxxx/xxxx.bin beside\n"
    "OUT.idx (idx-format.md §4.12). hzio writes ARCO datasets whole: an existing one cannot be\n"
    "changed yet.\n"
    "A last axis of extent 1 (a (1, ny, nx) array) is dropped: the dataset is 2-D (§8.6).\n"
    "If OUT.idx exists, the array becomes field --field at timestep --time of it. A timestep it\n"
    "does not declare yet is added (the dataset needs a time template: create it with --time);\n"
    "so is a new field, with --compression/--layout (adding a field rewrites the existing block\n"
    "files to widen their tables; `hzio create` with every field avoids that). The input must\n"
    "have the dataset's dims and the field's dtype; storage options, if given, must match.\n"
    "\n"
    "A write is all or nothing: until it commits (one rename of OUT.idx, data first) readers and a\n"
    "crash see the dataset as it was. Block files the dataset already has are never modified:\n"
    "writing into a timestep it declares writes the files that change into a new generation of\n"
    "its data directory (the others are hard-linked there) and removes the old one after the\n"
    "commit. One writer at a time: OUT.idx.lock names the holder.\n";

constexpr int64_t kDefaultSlabMiB = 128;  // two slabs in memory: the one written, the one read

// The input array: a C-order file region of samples, read by offset; or standard input ("-"),
// read once from start to end (the pieces are consumed in file order, one at a time).
class InputArray {
 public:
  InputArray(std::string path, int64_t data_offset, DType dtype, Point dims)
      : path_(std::move(path)), data_offset_(data_offset), dtype_(dtype), dims_(dims) {
    if (path_ == "-") {
      fd_ = STDIN_FILENO;
      path_ = "standard input";
      stream_ = true;
      return;
    }
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    Check(fd_ >= 0, errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
          "cannot open " + path_ + ": " + std::strerror(errno));
  }
  ~InputArray() {
    if (!stream_) ::close(fd_);
  }
  InputArray(const InputArray&) = delete;
  InputArray& operator=(const InputArray&) = delete;

  const DType& dtype() const { return dtype_; }
  const Point& dims() const { return dims_; }
  void Read(int64_t offset, int64_t size, uint8_t* out) {
    Check(!stream_ || offset == position_, ErrorCode::kInternal, path_ + ": pieces read out of order");
    int64_t done = 0;
    while (done < size) {
      const size_t want = static_cast<size_t>(std::min<int64_t>(size - done, int64_t{1} << 30));
      const ssize_t n = stream_ ? ::read(fd_, out + done, want)
                                : ::pread(fd_, out + done, want, static_cast<off_t>(data_offset_ + offset + done));
      if (n < 0 && errno == EINTR) continue;
      Check(n >= 0, ErrorCode::kIo, "cannot read " + path_ + ": " + std::strerror(errno));
      Check(n > 0, ErrorCode::kCorrupt,
            path_ + ": unexpected end of input after " + std::to_string(offset + done) + " of " +
                std::to_string(dtype_.BytesFor(dims_.Product())) + " bytes");
      done += n;
    }
    position_ = offset + size;
  }
  // A stream must end where the array does (more bytes mean the dims or dtype are wrong).
  void CheckEnd() {
    if (!stream_) return;
    uint8_t extra = 0;
    ssize_t n;
    while ((n = ::read(fd_, &extra, 1)) < 0 && errno == EINTR) {
    }
    Check(n == 0, ErrorCode::kInvalidArgument,
          path_ + " has more than the " + std::to_string(position_) + " bytes that --dims and --dtype describe");
  }

 private:
  std::string path_;
  int64_t data_offset_;
  DType dtype_;
  Point dims_;
  int fd_ = -1;
  bool stream_ = false;
  int64_t position_ = 0;
};

bool HasNpyMagic(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  Check(f != nullptr, errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
        "cannot open " + path + ": " + std::strerror(errno));
  char magic[6] = {};
  const size_t n = std::fread(magic, 1, sizeof magic, f);
  std::fclose(f);
  return n == sizeof magic && std::memcmp(magic, "\x93NUMPY", 6) == 0;
}

std::string DimsText(const Point& p) {
  std::string s;
  for (int d = 0; d < p.dims; ++d) s += (d ? "x" : "") + std::to_string(p[d]);
  return s;
}

// Opens INPUT as .npy or raw per the options; dims as given or from the numpy shape.
std::unique_ptr<InputArray> OpenInput(const Args& args, const std::string& path) {
  const std::optional<std::string> dims_text = args.Get("--dims");
  const std::optional<std::string> dtype_text = args.Get("--dtype");
  if (path == "-") {
    if (!dims_text || !dtype_text) throw args.Usage("input '-' (standard input) is raw: give --dims X,Y[,Z] and --dtype DTYPE");
    return std::make_unique<InputArray>(path, 0, ParseDTypeOption(args, *dtype_text, "--dtype"),
                                        ParseDims(args, *dims_text, "--dims"));
  }
  const bool npy = HasNpyMagic(path);
  if (npy) {
    if (dims_text) throw args.Usage("option '--dims' is for raw input; " + path + " is a .npy file with its own shape");
    NpyReader reader(path);
    const NpyHeader& h = reader.header();
    DType dtype = DType::Parse(NpyDescrToTypeName(h.descr));
    if (dtype_text) {
      const DType declared = ParseDTypeOption(args, *dtype_text, "--dtype");
      if (!(declared.Scalar() == dtype))
        throw args.Usage("option '--dtype' " + declared.ToString() + " does not match the .npy dtype " + h.descr +
                         " (" + dtype.ToString() + ")");
      dtype = declared;
    }
    const Point dims = NpyShapeToDims(h.shape, dtype.components(), path);
    return std::make_unique<InputArray>(path, h.data_offset, dtype, dims);
  }
  if (!dims_text || !dtype_text)
    throw args.Usage(path + " is not a .npy file; for raw input give --dims X,Y[,Z] and --dtype DTYPE");
  const Point dims = ParseDims(args, *dims_text, "--dims");
  const DType dtype = ParseDTypeOption(args, *dtype_text, "--dtype");
  struct stat st {};
  Check(::stat(path.c_str(), &st) == 0, ErrorCode::kNotFound, "cannot open " + path);
  const int64_t want = dtype.BytesFor(dims.Product());
  Check(st.st_size == want, ErrorCode::kInvalidArgument,
        path + " has " + std::to_string(st.st_size) + " bytes but " + DimsText(dims) + " samples of " +
            dtype.ToString() + " need " + std::to_string(want));
  return std::make_unique<InputArray>(path, 0, dtype, dims);
}

// The storage options given on the command line must agree with an existing dataset.
void CheckStorageMatches(const Args& args, const StorageOptions& s, const IdxHeader& h, const Field& f,
                         const std::string& out) {
  auto mismatch = [&](const std::string& option, const std::string& has) {
    return args.Usage("option '" + option + "' differs from the existing " + out + " (" + has +
                      "); leave it out to write into that dataset");
  };
  if (s.compression_given && s.compression != f.compression)
    throw mismatch("--compression", "field '" + f.name + "' uses " + (f.compression.empty() ? "raw" : f.compression));
  if (s.layout_given && s.hz_layout != f.hz_layout)
    throw mismatch("--layout", std::string("field '") + f.name + "' is " + (f.hz_layout ? "hzorder" : "rowmajor"));
  if (s.arco > 0 && h.arco == 0) throw mismatch("--arco", "a classic dataset, not ARCO");
  if (s.bits_per_block != 0 && s.bits_per_block != h.bits_per_block)
    throw mismatch("--bitsperblock", "bitsperblock " + std::to_string(h.bits_per_block));
  if (s.blocks_per_file && *s.blocks_per_file != h.blocks_per_file &&
      !(*s.blocks_per_file == -1 && h.blocks_per_file == static_cast<int64_t>(h.total_blocks())))
    throw mismatch("--blocksperfile", "blocksperfile " + std::to_string(h.blocks_per_file));
}

// One contiguous piece of the input: a box of the array and its byte range in the file.
struct Piece {
  Point first, count;  // array coordinates
  int64_t offset, bytes;
};

// Cuts the array into contiguous pieces of at most slab_bytes (one sample row at least), in file
// order: full rows along the fastest axes, a run along axis k, single indices on the slower ones.
std::vector<Piece> PlanPieces(const Point& dims, int64_t sample_bytes, int64_t slab_bytes) {
  const int n = dims.dims;
  std::vector<int64_t> stride(static_cast<size_t>(n) + 1, 1);  // samples per index step of axis d
  for (int d = 0; d < n; ++d) stride[static_cast<size_t>(d) + 1] = stride[static_cast<size_t>(d)] * dims[d];
  int k = 0;  // the slowest axis along which one index step (all faster axes full) still fits
  while (k + 1 < n && stride[static_cast<size_t>(k) + 1] * sample_bytes <= slab_bytes) ++k;
  const int64_t step_bytes = stride[static_cast<size_t>(k)] * sample_bytes;
  const int64_t run = std::clamp<int64_t>(slab_bytes / step_bytes, 1, dims[k]);

  std::vector<Piece> pieces;
  Point outer(n);  // indices of axes > k
  for (;;) {
    for (int64_t r = 0; r < dims[k]; r += run) {
      Piece p{Point(n), Point(n), 0, 0};
      for (int d = 0; d < n; ++d) {
        p.first[d] = d < k ? 0 : d == k ? r : outer[d];
        p.count[d] = d < k ? dims[d] : d == k ? std::min(run, dims[k] - r) : 1;
      }
      int64_t linear = 0;
      for (int d = 0; d < n; ++d) linear += p.first[d] * stride[static_cast<size_t>(d)];
      p.offset = linear * sample_bytes;
      p.bytes = p.count.Product() * sample_bytes;
      pieces.push_back(p);
    }
    int d = k + 1;
    while (d < n && ++outer[d] == dims[d]) outer[d++] = 0;
    if (d >= n) break;
  }
  return pieces;
}

}  // namespace

int RunConvert(int argc, char** argv) {
  Args args("convert", kUsage);
  args.Option("--dims").Option("--dtype").Option("--field").Option("--time").Option("--threads").Option("--slab-mb");
  AddStorageOptions(args);
  AddWriteOptions(args);
  if (!args.Parse(argc, argv, 2, 2, "INPUT and OUT.idx")) return 0;
  const std::string input_path = args.positionals()[0], out = args.positionals()[1];
  Check(!IsRemoteUrl(out), ErrorCode::kUnsupported,
        "hzio convert writes local datasets, not " + out.substr(0, out.find('?')) +
            ": convert to a local OUT.idx, then upload it with `hzio copy OUT.idx " + out.substr(0, out.find('?')) +
            "` (ARCO objects, a marker written last)");
  const StorageOptions storage = ReadStorageOptions(args);
  const std::optional<std::string> field_name = args.Get("--field");
  if (field_name) CheckFieldName(args, *field_name, "--field");
  const std::optional<int64_t> time_option = args.GetInt("--time", INT32_MIN, INT32_MAX);
  const int64_t slab_bytes = args.GetInt("--slab-mb", 1, 1 << 20).value_or(kDefaultSlabMiB) << 20;
  WriterOptions options;
  options.threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));

  std::unique_ptr<InputArray> input = OpenInput(args, input_path);
  Point dims = input->dims();
  if (dims.dims > 1 && dims[dims.dims - 1] == 1) {
    const std::string before = DimsText(dims);
    while (dims.dims > 1 && dims[dims.dims - 1] == 1) --dims.dims;
    std::fprintf(stderr, "hzio: note: %s is stored as %d-D %s (a last axis of extent 1 cannot be read by "
                 "OpenVisus, idx-format.md §8.6)\n", before.c_str(), dims.dims, DimsText(dims).c_str());
  }
  const DType dtype = input->dtype();

  // Everything below runs under the dataset's lock, on the header committed when it was taken.
  DatasetTransaction txn(out, ReadWriteOptions(args));
  int field = 0;
  int64_t time = 0;
  std::vector<std::string> notes;
  if (txn.exists()) {
    const IdxHeader& header = txn.committed();
    Check(header.box.Size() == dims, ErrorCode::kInvalidArgument,
          input_path + " is " + DimsText(dims) + " but " + out + " has dims " + DimsText(header.box.Size()));
    const bool new_field = field_name && std::none_of(header.fields.begin(), header.fields.end(),
                                                      [&](const Field& f) { return f.name == *field_name; });
    time = time_option.value_or(header.time.Default());
    const bool new_time = !header.time.Contains(time);
    // Everything is checked before the dataset is touched.
    if (new_field) {
      StorageOptions geometry_only = storage;
      geometry_only.compression_given = geometry_only.layout_given = false;
      CheckStorageMatches(args, geometry_only, header, header.fields[0], out);
    } else {
      field = field_name ? header.FieldIndex(*field_name) : 0;
      const Field& f = header.fields[static_cast<size_t>(field)];
      CheckStorageMatches(args, storage, header, f, out);
      Check(f.dtype == dtype, ErrorCode::kInvalidArgument,
            input_path + " holds " + dtype.ToString() + " but field '" + f.name + "' of " + out + " is " +
                f.dtype.ToString() + (dtype.components() == 1 && f.dtype.components() > 1
                                          ? " (give --dtype " + f.dtype.ToString() + " for a component axis)"
                                          : ""));
    }
    Check(!new_time || !header.time.tmpl.empty(), ErrorCode::kNotFound,
          "timestep " + std::to_string(time) + " is not declared in " + out + ", which has no time template "
          "and so holds one timestep; create it with `hzio create --time T0:T1` or convert with --time");
    if (new_field) {
      Field f;
      f.name = *field_name;
      f.dtype = dtype;
      f.compression = storage.compression;
      f.hz_layout = storage.hz_layout;
      txn.AddField(f);
      field = static_cast<int>(txn.target().fields.size()) - 1;
      notes.push_back("added field '" + f.name + "' to " + out);
    }
    if (new_time) {
      txn.AddTimestep(time);
      notes.push_back("added timestep " + std::to_string(time) + " to " + out);
    }
  } else {
    Field f;
    f.name = field_name.value_or("data");
    f.dtype = dtype;
    std::optional<std::pair<int64_t, int64_t>> range;
    if (time_option) range = std::make_pair(*time_option, *time_option);
    txn.Create(BuildNewHeader(out, dims, {f}, range, storage));
    time = time_option.value_or(0);
  }

  const auto start = std::chrono::steady_clock::now();
  DatasetWriter writer(txn, options);
  const IdxHeader& header = writer.header();
  const std::vector<Piece> pieces = PlanPieces(dims, dtype.SampleBytes(), slab_bytes);
  const int64_t total = dtype.BytesFor(dims.Product());
  ProgressBar progress("convert", total, ProgressBar::Unit::kBytes);
  std::vector<uint8_t> current, next;
  auto read_piece = [&](const Piece& p, std::vector<uint8_t>& buffer) {
    buffer.resize(static_cast<size_t>(p.bytes));
    input->Read(p.offset, p.bytes, buffer.data());
  };
  read_piece(pieces[0], current);
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::future<void> prefetch;
    if (i + 1 < pieces.size())
      prefetch = std::async(std::launch::async, read_piece, std::cref(pieces[i + 1]), std::ref(next));
    Box box(header.box.p1, header.box.p1);
    for (int d = 0; d < dims.dims; ++d) {
      box.p1[d] += pieces[i].first[d];
      box.p2[d] = box.p1[d] + pieces[i].count[d];
    }
    try {
      writer.Write(field, time, box, current.data());
    } catch (...) {
      if (prefetch.valid()) prefetch.wait();  // the reader thread uses `next`: let it finish first
      throw;
    }
    progress.Add(pieces[i].bytes);
    if (prefetch.valid()) prefetch.get();
    std::swap(current, next);
  }
  input->CheckEnd();
  writer.Finish();
  txn.Commit();
  progress.Finish();
  for (const std::string& note : notes) PrintNote(note);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const Field& f = header.fields[static_cast<size_t>(field)];
  std::printf("wrote %s: field %s (%s, %s, %s), time %lld, dims %s, %s in %.2f s (%.0f MiB/s)\n", out.c_str(),
              f.name.c_str(), f.dtype.ToString().c_str(), f.compression.empty() ? "raw" : f.compression.c_str(),
              f.hz_layout ? "hzorder" : "rowmajor", static_cast<long long>(time), DimsText(dims).c_str(),
              FormatBytes(total).c_str(), seconds, static_cast<double>(total) / (1 << 20) / std::max(seconds, 1e-9));
  return 0;
}

}  // namespace hzio::cli
