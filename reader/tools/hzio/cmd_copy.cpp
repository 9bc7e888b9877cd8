// `hzio copy`: re-lay out a dataset into a new one (classic <-> ARCO, compression, layout, block
// geometry), streaming (access/dataset_copy.h).
#include <chrono>
#include <cstdio>

#include "cli.h"
#include "hzio/access/dataset_copy.h"
#include "hzio/remote/dataset_upload.h"
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
    "so an interrupted copy leaves no dataset (running it again removes what it left).\n"
    "\n"
    "DST may be an S3 URL: s3://BUCKET/KEY/NAME.idx (endpoint and credentials from AWS_ENDPOINT_URL,\n"
    "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_PROFILE or ~/.aws), or OpenVisus's\n"
    "http(s)://HOST/BUCKET/KEY/NAME.idx?endpoint_url=...&access_key=...&secret_key=...: the dataset\n"
    "is uploaded as ARCO (--arco SIZE, default the source's ARCO size or 1mb for a classic source;\n"
    "classic block files are refused: an object store has no ranged writes), one object per block,\n"
    "many PUTs at once with bounded memory. Readers see it when the upload is complete (a marker\n"
    "object NAME.idx.hzio-upload is written first and last); run an interrupted upload again to\n"
    "complete it. An existing complete dataset there is never overwritten.\n";

// The bytes of samples a copy with `header` moves.
int64_t CopyBytes(const IdxHeader& header) {
  int64_t total = 0;
  for (const Field& f : header.fields)
    total += f.dtype.BytesFor(header.box.Size().Product()) * static_cast<int64_t>(header.time.List().size());
  return total;
}

int Upload(Dataset& source, const std::string& dst, CopyOptions options,
           std::chrono::steady_clock::time_point start) {
  CopyOptions for_total = options;
  for_total.arco = kDefaultUploadArcoBytes;  // any ARCO header: the total counts samples only
  ProgressBar progress("upload", CopyBytes(CopyHeader(source.header(), "visus.idx", for_total)),
                       ProgressBar::Unit::kBytes);
  int64_t shown = 0;
  options.progress = [&](int64_t done, int64_t) {
    progress.Add(done - shown);
    shown = done;
  };
  const UploadResult r = UploadDataset(source, dst, options, PrintNote);
  progress.Finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The source as the dataset names itself (a URL without its credentials).
  std::printf("uploaded %s to %s%s: %llu objects, %s stored (%s of samples) in %.2f s\n", source.source().c_str(),
              r.destination.c_str(), r.resumed ? " (over an interrupted upload)" : "",
              static_cast<unsigned long long>(r.objects), FormatBytes(static_cast<double>(r.bytes)).c_str(),
              FormatBytes(static_cast<double>(r.sample_bytes)).c_str(), seconds);
  return 0;
}

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
  if (IsRemoteUrl(dst)) return Upload(*source, dst, options, start);
  const IdxHeader header = CopyHeader(source->header(), dst, options);
  ProgressBar progress("copy", CopyBytes(header), ProgressBar::Unit::kBytes);
  int64_t shown = 0;
  options.progress = [&](int64_t done, int64_t) {
    progress.Add(done - shown);
    shown = done;
  };
  const int64_t bytes = CopyDataset(*source, dst, options);
  progress.Finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The source as the dataset names itself: a URL without the credentials it may carry.
  std::printf("copied %s to %s: %zu field(s), %zu timestep(s), %s, %s in %.2f s\n", source->source().c_str(), dst.c_str(),
              header.fields.size(), header.time.List().size(),
              header.arco > 0 ? ("ARCO " + std::to_string(header.arco) + "-byte blocks").c_str()
                              : ("classic, bitsperblock " + std::to_string(header.bits_per_block)).c_str(),
              FormatBytes(static_cast<double>(bytes)).c_str(), seconds);
  return 0;
}

}  // namespace hzio::cli
