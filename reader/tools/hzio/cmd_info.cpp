// `hzio info`: what a dataset holds and how it is laid out, as text or JSON (design.md §3).
#include <cstdio>
#include <set>

#include "cli.h"
#include "hzio/access/dataset.h"
#include "hzio/format/arco_block_path.h"
#include "hzio/format/block_files.h"
#include "hzio/format/hzio_keys.h"
#include "hzio/util/error.h"
#include "hzio/util/npy.h"
#include "json_writer.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio info DATASET [--json] [--cache-dir DIR | --no-cache]\n"
    "\n"
    "Describes a dataset (a .idx path or URL, below): dims, logic and\n"
    "physic box, bitmask, maxh, blocks and files, fields (dtype, compression, layout), timesteps,\n"
    "and the grid every level returns for the whole box (what `hzio read --level H` gives).\n"
    "\n"
    "  --json   one JSON object on stdout; boxes are [min, max) pairs per axis\n";

// Exact count of files holding blocks of the dataset box when the block count is modest; for huge
// layouts, the count of file slots (an upper bound).
struct FileCount {
  int64_t per_timestep = 0;
  bool exact = false;
};

FileCount CountFiles(const IdxHeader& header, const BlockLayout& layout) {
  FileCount c;
  const int64_t bpf = std::max<int64_t>(1, header.blocks_per_file);
  if (layout.total_blocks() <= (uint64_t{1} << 20)) {
    BlockFiles files(header, "");
    std::set<uint64_t> firsts;
    for (uint64_t b : layout.BlocksInRegion(header.box, LevelRange{0, layout.maxh()}))
      firsts.insert(files.FirstBlockInFile(b));
    c.per_timestep = static_cast<int64_t>(firsts.size());
    c.exact = true;
  } else {
    const auto total = static_cast<int64_t>(layout.total_blocks());
    c.per_timestep = (total + bpf - 1) / bpf;
  }
  if (header.arco > 0) c.per_timestep *= static_cast<int64_t>(header.fields.size());  // a file per field, too
  return c;
}

struct LevelInfo {
  int level;
  Grid grid;  // count 0 when the level has no sample inside the box
};

std::vector<LevelInfo> Levels(const IdxHeader& header, const BlockLayout& layout) {
  std::vector<LevelInfo> levels;
  for (int h = 0; h <= layout.maxh(); ++h) {
    LevelInfo info{h, {}};
    try {
      info.grid = layout.QueryGrid(header.box, LevelRange{0, h});
    } catch (const Error&) {  // no sample of levels 0..h inside a box away from the origin
      info.grid.origin = info.grid.stride = info.grid.count = Point(header.dims());
    }
    levels.push_back(info);
  }
  return levels;
}

std::string TimeText(const TimeSpec& time, int64_t* count) {
  if (time.any) {
    *count = 0;
    return "any integer (default " + std::to_string(time.Default()) + ")";
  }
  if (time.ranges.empty()) {
    *count = 1;
    return "0";
  }
  std::string s;
  *count = 0;
  for (const TimeRange& r : time.ranges) {
    if (!s.empty()) s += ", ";
    s += r.from == r.to ? std::to_string(r.from) : std::to_string(r.from) + ".." + std::to_string(r.to);
    if (r.step != 1) s += " step " + std::to_string(r.step);
    *count += (r.to - r.from) / r.step + 1;
  }
  return s;
}

std::string DimsText(const Point& p) {
  std::string s;
  for (int d = 0; d < p.dims; ++d) s += (d ? " x " : "") + std::to_string(p[d]);
  return s;
}

std::vector<int64_t> ToVector(const Point& p) { return std::vector<int64_t>(p.v.begin(), p.v.begin() + p.dims); }

void PrintJson(const Dataset& dataset) {
  const IdxHeader& h = dataset.header();
  const BlockLayout& layout = dataset.layout();
  JsonWriter j;
  j.BeginObject();
  j.Key("source").String(dataset.source());
  j.Key("version").Int(h.version);
  j.Key("dims").IntArray(ToVector(h.box.Size()));
  j.Key("box").BeginArray();
  for (int d = 0; d < h.dims(); ++d) j.IntArray({h.box.p1[d], h.box.p2[d]});
  j.EndArray();
  const std::vector<double> physic = h.PhysicBoxOrLogic();
  j.Key("physic_box").BeginArray();
  for (size_t i = 0; i + 1 < physic.size(); i += 2) j.DoubleArray({physic[i], physic[i + 1]});
  j.EndArray();
  j.Key("bitmask").String(h.bitmask.text());
  j.Key("maxh").Int(h.maxh());
  j.Key("bitsperblock").Int(h.bits_per_block);
  j.Key("blocksperfile").Int(h.blocks_per_file);
  j.Key("total_blocks").Int(static_cast<int64_t>(layout.total_blocks()));
  j.Key("filename_template").String(h.filename_template);
  j.Key("arco").Int(h.arco);
  if (const auto& c = h.pidx_chunking) {  // how the files store it (format/pidx_chunking.h)
    j.Key("pidx_chunking").BeginObject();
    j.Key("chunk").IntArray(ToVector(c->chunk));
    j.Key("stored_bitmask").String(c->stored_bitmask.text());
    j.Key("stored_bitsperblock").Int(c->stored_bits_per_block);
    j.Key("restructure_box").IntArray(ToVector(c->patch));
    j.EndObject();
  }
  j.Key("fields").BeginArray();
  for (const Field& f : h.fields) {
    j.BeginObject();
    j.Key("name").String(f.name);
    j.Key("dtype").String(f.dtype.ToString());
    j.Key("components").Int(f.dtype.components());
    j.Key("compression").String(f.compression.empty() ? "raw" : f.compression);
    j.Key("layout").String(f.hz_layout ? "hzorder" : "rowmajor");
    j.Key("default_value").Int(f.default_value);
    if (!f.min.empty()) j.Key("min").DoubleArray(f.min);
    if (!f.max.empty()) j.Key("max").DoubleArray(f.max);
    j.EndObject();
  }
  j.EndArray();
  int64_t time_count = 0;
  TimeText(h.time, &time_count);
  j.Key("timesteps").IntArray(h.time.List(100000));
  j.Key("timesteps_any").Bool(h.time.any);
  j.Key("time_template").String(h.time.tmpl);
  // Parts declared but never written (format/hzio_keys.h): they read as the default value.
  j.Key("never_written").BeginArray();
  for (const UnwrittenPart& p : NeverWrittenParts(h)) {
    j.BeginObject();
    j.Key("field").String(p.field);
    j.Key("timesteps").IntArray(p.list);
    j.EndObject();
  }
  j.EndArray();
  j.Key("generation").Int(Generation(h));
  const FileCount files = CountFiles(h, layout);
  j.Key("files").BeginObject();
  j.Key("per_timestep").Int(files.per_timestep);
  j.Key("total").Int(files.per_timestep * std::max<int64_t>(1, time_count));
  j.Key("exact").Bool(files.exact);
  j.EndObject();
  j.Key("levels").BeginArray();
  for (const LevelInfo& l : Levels(h, layout)) {
    j.BeginObject();
    j.Key("level").Int(l.level);
    j.Key("dims").IntArray(ToVector(l.grid.count));
    j.Key("shape").IntArray(DimsToNpyShape(l.grid.count, 1));
    j.Key("stride").IntArray(ToVector(l.grid.stride));
    j.Key("samples").Int(l.grid.NumSamples());
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  std::printf("%s\n", j.str().c_str());
}

void PrintText(const Dataset& dataset) {
  const IdxHeader& h = dataset.header();
  const BlockLayout& layout = dataset.layout();
  const char* axes = "xyzuv";
  std::printf("dataset        %s\n", dataset.source().c_str());
  std::printf("version        %d\n", h.version);
  std::printf("dims           %s  (%d-D, x first)\n", DimsText(h.box.Size()).c_str(), h.dims());
  std::printf("box            %s  (upper bounds excluded)\n", h.box.ToRangesString().c_str());
  const std::vector<double> physic = h.PhysicBoxOrLogic();
  std::printf("physic box    ");
  for (int d = 0; d < h.dims(); ++d)
    std::printf(" %c [%g, %g]", axes[d], physic[2 * static_cast<size_t>(d)], physic[2 * static_cast<size_t>(d) + 1]);
  std::printf("\n");
  std::printf("bitmask        %s  (maxh %d, padded %s)\n", h.bitmask.text().c_str(), h.maxh(),
              DimsText(h.bitmask.pow2()).c_str());
  std::printf("bitsperblock   %d  (%lld samples per block, %llu blocks)\n", h.bits_per_block,
              static_cast<long long>(layout.samples_per_block()), static_cast<unsigned long long>(layout.total_blocks()));
  std::printf("blocksperfile  %lld\n", static_cast<long long>(h.blocks_per_file));
  // ARCO (§4.12): one file per block at a fixed place; the template is not used.
  if (h.arco > 0)
    std::printf("layout         ARCO, one file per block of at most %lld bytes: %s\n", static_cast<long long>(h.arco),
                ArcoBlockPath("<name>", 0, "<field>", 1).c_str());
  else
    std::printf("file template  %s\n", h.filename_template.c_str());
  if (const auto& c = h.pidx_chunking)
    std::printf("PIDX chunked   chunks of %s samples; stored (bits) %s + chunk bits %s, (bitsperblock) %d;\n"
                "               restructure box %s; read-only\n",
                DimsText(c->chunk).c_str(), c->stored_bitmask.text().c_str(), c->within_bits.c_str(),
                c->stored_bits_per_block, DimsText(c->patch).c_str());
  int64_t time_count = 0;
  const std::string time_text = TimeText(h.time, &time_count);
  std::printf("timesteps      %s", time_text.c_str());
  if (time_count > 1) std::printf("  (%lld)", static_cast<long long>(time_count));
  if (!h.time.tmpl.empty()) std::printf("  template %s", h.time.tmpl.c_str());
  std::printf("\n");
  const FileCount files = CountFiles(h, layout);
  // An ARCO block never written has no file (§4.12): the count is a bound.
  std::printf("file count     %s%lld per timestep", files.exact && h.arco == 0 ? "" : "at most ",
              static_cast<long long>(files.per_timestep));
  if (time_count > 1)
    std::printf(", %lld in all", static_cast<long long>(files.per_timestep * time_count));
  if (h.arco > 0) std::printf(" (one per block and field; an absent block has none)");
  std::printf("\n");
  for (const UnwrittenPart& p : NeverWrittenParts(h))
    std::printf("never written  field %s at timestep(s) %s  (declared, reads as the default value)\n",
                p.field.c_str(), p.times.c_str());
  std::printf("fields\n");
  for (const Field& f : h.fields) {
    std::printf("  %-20s %-12s %-5s %-9s default %lld", f.name.c_str(), f.dtype.ToString().c_str(),
                f.compression.empty() ? "raw" : f.compression.c_str(), f.hz_layout ? "hzorder" : "rowmajor",
                static_cast<long long>(f.default_value));
    std::printf("  (%s per timestep)\n", FormatBytes(f.dtype.BytesFor(h.box.Size().Product())).c_str());
  }
  std::printf("levels         (grid of `hzio read --level H` on the whole box; vector fields add a last\n"
              "               numpy axis of their components)\n");
  std::printf("  %-4s %-24s %-24s %s\n", "H", "dims (x first)", "npy shape", "stride");
  for (const LevelInfo& l : Levels(h, layout)) {
    std::printf("  %-4d %-24s %-24s %s\n", l.level, DimsText(l.grid.count).c_str(),
                FormatShape(DimsToNpyShape(l.grid.count, 1)).c_str(), l.grid.stride.ToString().c_str());
  }
}

}  // namespace

int RunInfo(int argc, char** argv) {
  Args args("info", std::string(kUsage) + kCacheHelp + "\n" + kDatasetHelp);
  args.Flag("--json");
  AddCacheOptions(args);
  if (!args.Parse(argc, argv, 1, 1, "DATASET")) return 0;
  OpenOptions options;
  ReadCacheOptions(args, options);
  std::shared_ptr<Dataset> dataset = OpenDataset(args.positionals()[0], options);
  if (args.Has("--json")) PrintJson(*dataset);
  else PrintText(*dataset);
  return 0;
}

}  // namespace hzio::cli
