// `hzio verify`: decodes every block a dataset should hold (design.md §3). Blocks that are absent
// (idx-format.md §4.6) are listed as missing, which is legal; blocks whose file, table entry or
// payload does not decode are corrupt and make the exit status non-zero. A local dataset is also
// inspected for leftovers of interrupted or superseded writes (access/dataset_leftovers.h), which
// `--repair` (alias `hzio gc`) reclaims under the dataset's lock before verifying.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "cli.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_leftovers.h"
#include "hzio/access/dataset_transaction.h"
#include "hzio/storage/lock_file.h"
#include "hzio/util/error.h"
#include "hzio/util/progress.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio verify DATASET [--threads N] [--repair [--wait]] [--cache-dir DIR | --no-cache]\n"
    "       hzio gc DATASET [--wait]            (the same as verify --repair)\n"
    "\n"
    "Reads and decodes every block of every field and timestep whose samples fall inside the\n"
    "dataset box. Prints, per field and timestep, how many blocks are present, missing (never\n"
    "written: legal, read as the default value) and corrupt (with the reason). Exits with status 1\n"
    "if any block is corrupt or the data directory the header names is missing.\n"
    "\n"
    "For a local dataset it also lists the field/timestep parts declared but never written, and\n"
    "leftovers with their sizes: temporary files of interrupted writes, data directory\n"
    "generations the header does not name (staged by a killed writer, or superseded), files no\n"
    "declared block maps to, and bytes inside block files that no table entry references.\n"
    "\n"
    "  --threads N   blocks decoded in parallel (default: all cores)\n"
    "  --repair      first reclaim the leftovers, under the dataset's lock: remove them, and\n"
    "                rewrite files with unreferenced bytes packed (as a new version, atomically)\n"
    "  --wait        with --repair: wait while another writer holds the lock (default: fail)\n";

constexpr size_t kListedMissing = 8;
constexpr size_t kListedCorrupt = 10;

struct Corrupt {
  uint64_t block;
  std::string reason;
};

struct Tally {
  int64_t present = 0, missing = 0;
  std::vector<uint64_t> first_missing;
  std::vector<Corrupt> corrupt;
};

// Verifies one field at one timestep with `threads` workers sharing the block list.
Tally VerifyOne(Dataset& dataset, int field, int64_t time, const std::vector<uint64_t>& blocks, int threads,
                ProgressBar& progress) {
  enum : uint8_t { kPresent, kMissing, kCorrupt };
  std::vector<uint8_t> status(blocks.size(), kPresent);
  std::vector<Corrupt> corrupt;
  std::mutex mutex;
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next.fetch_add(1); i < blocks.size(); i = next.fetch_add(1)) {
      try {
        status[i] = dataset.ReadBlock(field, time, blocks[i]) ? kPresent : kMissing;
      } catch (const std::exception& e) {  // hzio::Error, or bad_alloc on an absurd entry
        status[i] = kCorrupt;
        std::lock_guard<std::mutex> lock(mutex);
        corrupt.push_back({blocks[i], e.what()});
      }
      progress.Add(1);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  Tally tally;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (status[i] == kPresent) ++tally.present;
    if (status[i] != kMissing) continue;
    ++tally.missing;
    if (tally.first_missing.size() < kListedMissing) tally.first_missing.push_back(blocks[i]);
  }
  std::sort(corrupt.begin(), corrupt.end(), [](const Corrupt& a, const Corrupt& b) { return a.block < b.block; });
  tally.corrupt = std::move(corrupt);
  return tally;
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}


// Lists what a leftover report holds; returns the number of reclaimable items.
size_t PrintLeftovers(const LeftoverReport& report) {
  for (const UnwrittenPart& p : report.never_written)
    std::printf("never written: field %s at timestep(s) %s (declared; reads as the default value)\n", p.field.c_str(),
                p.times.c_str());
  for (const Leftover& l : report.items)
    std::printf("leftover: %s: %s, %s\n", l.path.c_str(), LeftoverKindName(l.kind), FormatBytes(static_cast<double>(l.bytes)).c_str());
  return report.Reclaimable();
}

// `verify --repair`: reclaims leftovers under the lock, printing what it does.
void Repair(const std::string& path, const Args& args) {
  TransactionOptions options;
  options.wait = args.Has("--wait");
  options.notify = PrintNote;
  // Seen before locking: a killed writer's lock file is what this repair's own lock replaces.
  const bool abandoned_lock = IsAbandonedLockFile(LockPathFor(path));
  DatasetTransaction txn(path, options);
  Check(txn.exists(), ErrorCode::kNotFound, path + ": no such dataset");
  const LeftoverReport report = FindLeftovers(txn.committed(), path);
  if (abandoned_lock)
    std::printf("removing %s (%s)\n", LockPathFor(path).c_str(), LeftoverKindName(Leftover::Kind::kAbandonedLock));
  for (const Leftover& l : report.items) {
    if (l.kind == Leftover::Kind::kForeign) continue;
    std::printf("%s %s (%s, %s)\n", l.kind == Leftover::Kind::kUnreferencedBytes ? "packing" : "removing", l.path.c_str(),
                LeftoverKindName(l.kind), FormatBytes(static_cast<double>(l.bytes)).c_str());
  }
  RepairLeftovers(txn, report);
  std::printf("repair: %zu leftover(s), %s reclaimed\n", report.Reclaimable() + (abandoned_lock ? 1 : 0),
              FormatBytes(static_cast<double>(report.ReclaimableBytes())).c_str());
  std::fflush(stdout);
}

int Verify(int argc, char** argv, bool always_repair) {
  Args args(always_repair ? "gc" : "verify", std::string(kUsage) + kCacheHelp + "\n" + kDatasetHelp);
  args.Option("--threads").Flag("--wait");
  AddCacheOptions(args);
  if (!always_repair) args.Flag("--repair");
  if (!args.Parse(argc, argv, 1, 1, "DATASET")) return 0;
  int threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string path = args.positionals()[0];
  const bool repair = always_repair || args.Has("--repair");
  if (args.Has("--wait") && !repair) throw args.Usage("option '--wait' goes with --repair");
  if (repair && IsRemoteUrl(path)) throw args.Usage("--repair needs a local dataset (.idx path), not a URL");
  if (repair) Repair(path, args);

  OpenOptions options;
  options.threads = 1;  // parallelism comes from verifying several blocks at once
  ReadCacheOptions(args, options);
  std::shared_ptr<Dataset> dataset = OpenDataset(path, options);
  const IdxHeader& header = dataset->header();
  const BlockLayout& layout = dataset->layout();
  const std::vector<uint64_t> blocks = layout.BlocksInRegion(header.box, LevelRange{0, layout.maxh()});
  const std::vector<int64_t> times = header.time.List();
  if (header.time.any)
    std::printf("note: timesteps are '* *' (any integer); verifying the default timestep %lld only\n",
                static_cast<long long>(header.time.Default()));
  const std::optional<WrittenParts> written = WrittenParts::Of(header);

  const int64_t total = static_cast<int64_t>(blocks.size() * times.size() * header.fields.size());
  ProgressBar progress("verify", total, ProgressBar::Unit::kCount);
  int64_t present = 0, missing = 0, corrupt = 0;
  for (int64_t time : times) {
    for (size_t f = 0; f < header.fields.size(); ++f) {
      const Tally t = VerifyOne(*dataset, static_cast<int>(f), time, blocks, threads, progress);
      present += t.present;
      missing += t.missing;
      corrupt += static_cast<int64_t>(t.corrupt.size());
      if (progress.enabled()) std::fprintf(stderr, "\r\033[K");  // keep the report lines clean
      std::printf("time %lld field %s: %zu blocks, %lld present, %lld missing", static_cast<long long>(time),
                  header.fields[f].name.c_str(), blocks.size(), static_cast<long long>(t.present),
                  static_cast<long long>(t.missing));
      if (written && !written->Contains(header.fields[f].name, time)) {
        std::printf(" (declared, never written)");
      } else if (!t.first_missing.empty()) {
        std::printf(" (ids");
        for (uint64_t b : t.first_missing) std::printf(" %llu", static_cast<unsigned long long>(b));
        if (t.missing > static_cast<int64_t>(t.first_missing.size())) std::printf(" ...");
        std::printf(")");
      }
      std::printf(", %zu corrupt\n", t.corrupt.size());
      for (size_t i = 0; i < t.corrupt.size() && i < kListedCorrupt; ++i)
        std::printf("  corrupt block %llu: %s\n", static_cast<unsigned long long>(t.corrupt[i].block),
                    OneLine(t.corrupt[i].reason).c_str());
      if (t.corrupt.size() > kListedCorrupt)
        std::printf("  ... and %zu more corrupt blocks\n", t.corrupt.size() - kListedCorrupt);
      std::fflush(stdout);
    }
  }
  progress.Finish();

  std::optional<LeftoverReport> leftovers;
  if (!IsRemoteUrl(path) && header.arco == 0) leftovers = FindLeftovers(header, path);
  const size_t reclaimable = leftovers ? PrintLeftovers(*leftovers) : 0;
  const bool directory_missing = leftovers && leftovers->missing_directory;
  if (directory_missing)
    std::printf("missing: %s: the data directory the header names does not exist\n", leftovers->missing_directory->c_str());
  const bool failed = corrupt > 0 || directory_missing;
  std::printf("%s: %lld blocks checked, %lld present, %lld missing, %lld corrupt", failed ? "FAILED" : "OK",
              static_cast<long long>(total), static_cast<long long>(present), static_cast<long long>(missing),
              static_cast<long long>(corrupt));
  if (reclaimable > 0)
    std::printf("; %zu leftover(s), %s reclaimable (hzio verify --repair, or hzio gc)", reclaimable,
                FormatBytes(static_cast<double>(leftovers->ReclaimableBytes())).c_str());
  std::printf("\n");
  if (corrupt) {
    std::fprintf(stderr, "hzio: %s has %lld corrupt block(s)\n", path.c_str(), static_cast<long long>(corrupt));
    return 1;
  }
  if (directory_missing) {
    std::fprintf(stderr, "hzio: %s: its data directory %s is missing\n", path.c_str(),
                 leftovers->missing_directory->c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int RunVerify(int argc, char** argv) { return Verify(argc, argv, false); }
int RunGc(int argc, char** argv) { return Verify(argc, argv, true); }

}  // namespace hzio::cli
