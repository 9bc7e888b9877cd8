// Helpers shared by the hzio subcommands: option values -> library types.

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli.h"
#include "hzio/format/new_header.h"
#include "hzio/codec/codec.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::cli {

Point ParseDims(const Args& args, const std::string& text, const std::string& option) {
  const std::vector<std::string> parts = Split(text, ',');
  if (parts.empty() || parts.size() > static_cast<size_t>(kMaxDims))
    throw args.Usage("option '" + option + "' expects X,Y[,Z] sample counts, got '" + text + "'");
  Point dims(static_cast<int>(parts.size()));
  for (size_t i = 0; i < parts.size(); ++i) {
    int64_t v = 0;
    try {
      v = ParseInt64(Trim(parts[i]), option);
    } catch (const Error&) {
      throw args.Usage("option '" + option + "' expects X,Y[,Z] sample counts, got '" + text + "'");
    }
    if (v < 1 || v > (int64_t{1} << 40))
      throw args.Usage("option '" + option + "': count " + parts[i] + " must be >= 1 and <= 2^40");
    dims[static_cast<int>(i)] = v;
  }
  return dims;
}

DType ParseDTypeOption(const Args& args, const std::string& text, const std::string& option) {
  try {
    DType t = DType::Parse(text);
    if (!t.ByteAligned())
      throw args.Usage("option '" + option + "': dtype " + t.ToString() + " is not byte aligned");
    return t;
  } catch (const Error& e) {
    throw args.Usage("option '" + option + "': " + e.what());
  }
}

void CheckFieldName(const Args& args, const std::string& name, const std::string& option) {
  try {
    CheckNewFieldName(name);
  } catch (const Error& e) {
    throw args.Usage("option '" + option + "': " + e.what());
  }
}

void CheckNoTrailingUnitAxes(const Args& args, const Point& dims, const std::string& option) {
  if (dims.dims > 1 && dims[dims.dims - 1] == 1) {
    Point fixed = dims;
    while (fixed.dims > 1 && fixed[fixed.dims - 1] == 1) --fixed.dims;
    std::string suggestion;
    for (int d = 0; d < fixed.dims; ++d) suggestion += (d ? "," : "") + std::to_string(fixed[d]);
    throw args.Usage("option '" + option + "': a last axis of extent 1 makes a dataset OpenVisus cannot read "
                     "(idx-format.md §8.6); give the dims without it: " + suggestion);
  }
}

std::string IdxStem(const std::string& idx_path) {
  std::string name = idx_path.substr(idx_path.find_last_of('/') + 1);
  const size_t dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

void AddStorageOptions(Args& args) {
  args.Option("--compression").Option("--layout").Option("--bitsperblock").Option("--blocksperfile").Option("--arco");
}

StorageOptions ReadStorageOptions(const Args& args) {
  StorageOptions s;
  if (std::optional<std::string> c = args.Get("--compression")) {
    const std::string v = ToLower(*c);
    if (v == "raw" || v == "none") {
      s.compression = "";
    } else {
      CodecSpec spec;
      try {
        spec = CodecSpec::Parse(*c);
      } catch (const Error& e) {
        throw args.Usage(std::string("option '--compression': ") + e.what());
      }
      if (spec.codec == Codec::kRaw)
        throw args.Usage("option '--compression' must be raw, zip, lz4, png, jpg or zfp[-MODE[-MODE]], got '" + *c + "'");
      // zfp blocks are written (and read by hzio) in the spec's first mode. OpenVisus 2.2.149
      // decodes with the second one, and reads a bare "zfp" with precision 64 though its blocks are
      // reversible (garbage, idx-format.md §9): the header says zfp-<mode>-<mode> so that it agrees.
      s.compression = spec.codec == Codec::kZfp
                          ? "zfp-" + spec.zfp_encode.ToString() + "-" + spec.zfp_encode.ToString()
                          : *c;
    }
    s.compression_given = true;
  }
  if (std::optional<std::string> l = args.Get("--layout")) {
    const std::string v = ToLower(*l);
    if (v == "hzorder" || v == "hz") s.hz_layout = true;
    else if (v == "rowmajor" || v == "row_major") s.hz_layout = false;
    else throw args.Usage("option '--layout' must be hzorder or rowmajor, got '" + *l + "'");
    s.layout_given = true;
  }
  s.bits_per_block = static_cast<int>(args.GetInt("--bitsperblock", 1, 30).value_or(0));
  s.blocks_per_file = args.GetInt("--blocksperfile", -1, int64_t{1} << 26);
  if (s.blocks_per_file && *s.blocks_per_file == 0)
    throw args.Usage("option '--blocksperfile' must be -1 (one file) or >= 1");
  if (std::optional<std::string> a = args.Get("--arco")) {
    try {
      s.arco = ParseByteSize(*a, "option '--arco'");
    } catch (const Error& e) {
      throw args.Usage(e.what());
    }
    // ARCO derives both from the block size (idx-format.md §1.7 step 9).
    if (s.bits_per_block != 0 || s.blocks_per_file)
      throw args.Usage("option '--arco' sets bitsperblock and blocksperfile itself: drop --bitsperblock/--blocksperfile");
  }
  return s;
}

std::pair<int64_t, int64_t> ParseTimeRange(const Args& args, const std::string& text) {
  const std::vector<std::string> parts = Split(text, ':');
  try {
    if (parts.size() == 1) {
      const int64_t t = ParseInt64(Trim(parts[0]), "--time");
      return {t, t};
    }
    if (parts.size() == 2) {
      const int64_t a = ParseInt64(Trim(parts[0]), "--time"), b = ParseInt64(Trim(parts[1]), "--time");
      if (b < a) throw args.Usage("option '--time' " + text + ": the last timestep is before the first");
      return {a, b};
    }
  } catch (const Error&) {
  }
  throw args.Usage("option '--time' expects T or T0:T1 (integers, T1 inclusive), got '" + text + "'");
}

IdxHeader BuildNewHeader(const std::string& idx_path, const Point& dims, std::vector<Field> fields,
                         std::optional<std::pair<int64_t, int64_t>> time, const StorageOptions& storage) {
  NewHeaderOptions options;
  options.compression = storage.compression;
  options.hz_layout = storage.hz_layout;
  options.bits_per_block = storage.bits_per_block;
  options.blocks_per_file = storage.blocks_per_file;
  options.time = time;
  IdxHeader header = NewIdxHeader(IdxStem(idx_path), dims, std::move(fields), options);
  if (storage.arco > 0) {
    header.arco = storage.arco;
    header.Validate(IdxStem(idx_path));  // bitsperblock from the block size, one block per file
  }
  return header;
}

void PrintNote(const std::string& message) { std::fprintf(stderr, "hzio: note: %s\n", message.c_str()); }

void AddWriteOptions(Args& args) { args.Flag("--wait").Flag("--sync"); }

TransactionOptions ReadWriteOptions(const Args& args) {
  TransactionOptions t;
  t.wait = args.Has("--wait");
  t.sync = args.Has("--sync");
  t.notify = PrintNote;
  return t;
}

const char kDatasetHelp[] =
    "DATASET is a .idx path or a URL: http(s)://HOST:PORT/mod_visus?dataset=NAME (an hzio or OpenVisus\n"
    "server), http(s)://HOST/PATH/visus.idx (a web server), s3://BUCKET/KEY/visus.idx (credentials and\n"
    "endpoint from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL, AWS_REGION, AWS_PROFILE\n"
    "or ~/.aws), or http(s)://HOST/BUCKET/KEY/visus.idx?endpoint_url=...&access_key=...&secret_key=...\n";

const char kCacheHelp[] =
    "  --cache-dir DIR  disk cache of remote blocks, shared by processes (default: HZIO_CACHE_DIR,\n"
    "                 else ~/.cache/hzio)\n"
    "  --cache-size S   its size limit, e.g. 20g (default: HZIO_CACHE_SIZE, else 10g)\n"
    "  --no-cache     read remote datasets without the disk cache\n";

void AddCacheOptions(Args& args) { args.Option("--cache-dir").Option("--cache-size").Flag("--no-cache"); }

void ReadCacheOptions(const Args& args, OpenOptions& options) {
  if (args.Has("--no-cache") && args.Has("--cache-dir"))
    throw args.Usage("options '--no-cache' and '--cache-dir' exclude each other");
  if (args.Has("--no-cache")) options.cache_dir = "";
  if (std::optional<std::string> dir = args.Get("--cache-dir")) {
    if (dir->empty()) throw args.Usage("option '--cache-dir' needs a folder");
    options.cache_dir = *dir;
  }
  if (std::optional<std::string> size = args.Get("--cache-size")) {
    try {
      options.cache_max_bytes = ParseByteSize(*size, "option '--cache-size'");
    } catch (const Error& e) {
      throw args.Usage(e.what());
    }
  }
}

IdxHeader ReadLocalHeader(const std::string& idx_path) {
  std::ifstream in(idx_path, std::ios::binary);
  Check(static_cast<bool>(in), ErrorCode::kNotFound, "cannot open " + idx_path);
  std::ostringstream text;
  text << in.rdbuf();
  return IdxHeader::Parse(text.str(), idx_path, IdxStem(idx_path));
}

}  // namespace hzio::cli
