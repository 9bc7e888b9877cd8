// `hzio copy`: re-lay out a dataset into a new one (classic <-> ARCO, compression, layout, block
// geometry), streaming (access/dataset_copy.h).
#include <chrono>
#include <cstdio>

#include "cli.h"
#include "hzio/access/dataset_copy.h"
#include "hzio/util/error.h"
#include "hzio/util/progress.h"
#include "hzio/util/strings.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio copy SRC DST.idx [--arco SIZE] [--compression raw|zip|lz4|png|jpg|zfp]\n"
    "                 [--layout hzorder|rowmajor] [--bitsperblock N] [--blocksperfile N]\n"
    "                 [--field NAME[,NAME...]] [--time T|T0:T1] [--slab-mb M] [--threads N] [--wait] [--sync]\n"
    "\n"
    "Copies dataset SRC (a .idx path or a URL) into a new dataset DST.idx, re-laid out: classic\n"
    "block files, or ARCO with --arco SIZE (one file per block of at most SIZE bytes: 1mb as\n"
    "OpenVisus's create_idx, 512kb, or bytes; idx-format.md §4.12), another compression or layout\n"
    "for every field, another bitsperblock/blocksperfile (classic). Without options each field\n"
    "keeps its compression and layout and a classic source its block geometry. --field and --time\n"
    "copy some fields and timesteps only.\n"
    "\n"
    "Samples stream through in pieces of the domain in hz order (--slab-mb, default 64 MiB each):\n"
    "memory is a piece plus the destination blocks still waiting for samples. DST.idx must not\n"
    "exist; it is renamed into place after all its data,\n"
    "so an interrupted copy leaves no dataset (running it again removes what it left).\n";

}  // namespace

int RunCopy(int argc, char** argv) {
  Args args("copy", kUsage);
  args.Option("--field").Option("--time").Option("--threads").Option("--slab-mb");
  AddStorageOptions(args);
  AddWriteOptions(args);
  if (!args.Parse(argc, argv, 2, 2, "SRC and DST.idx")) return 0;
  const std::string src = args.positionals()[0], dst = args.positionals()[1];
  const StorageOptions storage = ReadStorageOptions(args);
  CopyOptions options;
  options.arco = storage.arco;
  if (storage.compression_given) options.compression = storage.compression;
  if (storage.layout_given) options.hz_layout = storage.hz_layout;
  options.bits_per_block = storage.bits_per_block;
  options.blocks_per_file = storage.blocks_per_file;
  if (std::optional<std::string> fields = args.Get("--field"))
    for (const std::string& name : Split(*fields, ',')) options.fields.push_back(Trim(name));
  if (std::optional<std::string> time = args.Get("--time")) options.times = ParseTimeRange(args, *time);
  options.slab_bytes = args.GetInt("--slab-mb", 1, 1 << 20).value_or(64) << 20;
  const TransactionOptions txn = ReadWriteOptions(args);
  options.writer.threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));
  options.writer.sync = txn.sync;
  options.writer.wait = txn.wait;
  options.writer.notify = txn.notify;

  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<Dataset> source = OpenDataset(src);
  const IdxHeader header = CopyHeader(source->header(), dst, options);
  int64_t total = 0;
  for (const Field& f : header.fields)
    total += f.dtype.BytesFor(header.box.Size().Product()) * static_cast<int64_t>(header.time.List().size());
  ProgressBar progress("copy", total, ProgressBar::Unit::kBytes);
  int64_t shown = 0;
  options.progress = [&](int64_t done, int64_t) {
    progress.Add(done - shown);
    shown = done;
  };
  const int64_t bytes = CopyDataset(*source, dst, options);
  progress.Finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("copied %s to %s: %zu field(s), %zu timestep(s), %s, %s in %.2f s\n", src.c_str(), dst.c_str(),
              header.fields.size(), header.time.List().size(),
              header.arco > 0 ? ("ARCO " + std::to_string(header.arco) + "-byte blocks").c_str()
                              : ("classic, bitsperblock " + std::to_string(header.bits_per_block)).c_str(),
              FormatBytes(static_cast<double>(bytes)).c_str(), seconds);
  return 0;
}

}  // namespace hzio::cli
