// hzio-bench-remote: times reads of a dataset named by URL (S3, web server) or path, opened anew
// for every run so that each pays the header round trip as a new process would, with or without
// the disk cache (bench/remote/run_bench.py drives it).
//
//   hzio-bench-remote read DATASET [--level H] [--repeat N] [--cache-dir DIR] [--warm]
//
// --cache-dir DIR reads through the disk cache in DIR (none otherwise); --warm reads once before
// timing (fills that cache). Prints one JSON object: median and every run in seconds, bytes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/util/error.h"

namespace {

std::string Option(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

bool Flag(int argc, char** argv, const std::string& name) {
  for (int i = 1; i < argc; ++i)
    if (argv[i] == name) return true;
  return false;
}

int Read(int argc, char** argv) {
  hzio::OpenOptions options;
  options.cache_dir = Option(argc, argv, "--cache-dir", "");
  options.memory_cache = false;  // every run reads the store or the disk
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "3"));
  std::vector<uint8_t> out;
  int64_t bytes = 0, samples = 0;
  int level = -1;
  auto run = [&] {
    auto ds = hzio::OpenDataset(argv[2], options);
    hzio::BoxQuery q;
    q.level = std::stoi(Option(argc, argv, "--level", std::to_string(ds->header().maxh())));
    const hzio::Dataset::Resolved r = ds->Resolve(q);
    bytes = ds->header().fields[static_cast<size_t>(r.field)].dtype.BytesFor(r.grid.NumSamples());
    samples = r.grid.NumSamples();
    level = *q.level;
    out.resize(static_cast<size_t>(bytes));
    ds->ReadInto(r, out.data());
  };
  if (Flag(argc, argv, "--warm")) run();
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  std::string runs;
  for (double t : times) runs += (runs.empty() ? "" : ",") + std::to_string(t);
  std::printf("{\"median_s\":%f,\"bytes\":%lld,\"samples\":%lld,\"level\":%d,\"runs\":[%s]}\n", sorted[sorted.size() / 2],
              static_cast<long long>(bytes), static_cast<long long>(samples), level, runs.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 2 && std::string(argv[1]) == "read") return Read(argc, argv);
    std::cerr << "usage: hzio-bench-remote read DATASET [--level H] [--repeat N] [--cache-dir DIR] [--warm]\n";
    return 2;
  } catch (const hzio::Error& e) {
    std::cerr << "hzio-bench-remote: " << e.what() << "\n";
    return 1;
  }
}
