// `hzio verify`: decodes every block a dataset should hold (design.md §3). Blocks that are absent
// (idx-format.md §4.6) are listed as missing, which is legal; blocks whose file, table entry or
// payload does not decode are corrupt and make the exit status non-zero.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>

#include "cli.h"
#include "hzio/access/dataset.h"
#include "hzio/util/error.h"
#include "hzio/util/progress.h"

namespace hzio::cli {

namespace {

constexpr char kUsage[] =
    "usage: hzio verify DATASET [--threads N] [--cache-dir DIR | --no-cache]\n"
    "\n"
    "Reads and decodes every block of every field and timestep whose samples fall inside the\n"
    "dataset box. Prints, per field and timestep, how many blocks are present, missing (never\n"
    "written: legal, read as the default value) and corrupt (with the reason). Exits with status 1\n"
    "if any block is corrupt.\n"
    "\n"
    "  --threads N   blocks decoded in parallel (default: all cores)\n";

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

}  // namespace

int RunVerify(int argc, char** argv) {
  Args args("verify", std::string(kUsage) + kCacheHelp + "\n" + kDatasetHelp);
  args.Option("--threads");
  AddCacheOptions(args);
  if (!args.Parse(argc, argv, 1, 1, "DATASET")) return 0;
  int threads = static_cast<int>(args.GetInt("--threads", 0, 1024).value_or(0));
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  OpenOptions options;
  options.threads = 1;  // parallelism comes from verifying several blocks at once
  ReadCacheOptions(args, options);
  std::shared_ptr<Dataset> dataset = OpenDataset(args.positionals()[0], options);
  const IdxHeader& header = dataset->header();
  const BlockLayout& layout = dataset->layout();
  const std::vector<uint64_t> blocks = layout.BlocksInRegion(header.box, LevelRange{0, layout.maxh()});
  const std::vector<int64_t> times = header.time.List();
  if (header.time.any)
    std::printf("note: timesteps are '* *' (any integer); verifying the default timestep %lld only\n",
                static_cast<long long>(header.time.Default()));

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
      if (!t.first_missing.empty()) {
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
  std::printf("%s: %lld blocks checked, %lld present, %lld missing, %lld corrupt\n",
              corrupt ? "FAILED" : "OK", static_cast<long long>(total), static_cast<long long>(present),
              static_cast<long long>(missing), static_cast<long long>(corrupt));
  if (corrupt) {
    std::fprintf(stderr, "hzio: %s has %lld corrupt block(s)\n", args.positionals()[0].c_str(),
                 static_cast<long long>(corrupt));
    return 1;
  }
  return 0;
}

}  // namespace hzio::cli
