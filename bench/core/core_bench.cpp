// Serial read/write benchmark driver for hzio::core (issue 2, design.md §7). Every buffer is
// allocated and touched before timing (page faults are slow on the benchmark VM), so the timed
// region is the library's own work. Prints one JSON object per command.
//
//   hzio-bench-core read IDX [--level H] [--repeat N]        box query of the whole dataset
//   hzio-bench-core write RAW OUT.idx --dims X,Y,Z --dtype T [--compression C] [--layout L]
//                   [--bitsperblock N] [--blocksperfile N] [--repeat N]
//   hzio-bench-core memcpy BYTES [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/util/strings.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string Option(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 0; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

void Touch(std::vector<uint8_t>& buf) {
  for (size_t i = 0; i < buf.size(); i += 4096) buf[i] = 1;
}

std::string Json(const std::vector<double>& times, int64_t bytes, const std::string& extra) {
  std::string s = "{\"median_s\":" + std::to_string(Median(times)) + ",\"bytes\":" + std::to_string(bytes) +
                  ",\"gb_per_s\":" + std::to_string(static_cast<double>(bytes) / Median(times) / 1e9) + ",\"runs\":[";
  for (size_t i = 0; i < times.size(); ++i) s += (i ? "," : "") + std::to_string(times[i]);
  return s + "]" + extra + "}";
}

int Read(int argc, char** argv) {
  auto ds = hzio::OpenDataset(argv[2]);
  hzio::BoxQuery q;
  q.level = std::stoi(Option(argc, argv, "--level", std::to_string(ds->header().maxh())));
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "5"));
  hzio::Dataset::Resolved r = ds->Resolve(q);
  const int64_t bytes = ds->header().fields[0].dtype.BytesFor(r.grid.NumSamples());
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  Touch(out);
  ds->ReadInto(r, out.data());  // warm the page cache and the block tables
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = Clock::now();
    ds->ReadInto(r, out.data());
    times.push_back(Seconds(t0, Clock::now()));
  }
  std::cout << Json(times, bytes, ",\"level\":" + std::to_string(*q.level) + ",\"samples\":" +
                                      std::to_string(r.grid.NumSamples())) << "\n";
  return 0;
}

int Write(int argc, char** argv) {
  const std::string raw = argv[2], out = argv[3];
  const hzio::Box box = hzio::Box::ParseRanges([&] {
    std::string dims = Option(argc, argv, "--dims", "");
    std::string ranges;
    for (const std::string& d : hzio::Split(dims, ',')) ranges += (ranges.empty() ? "0:" : ",0:") + d;
    return ranges;
  }());
  hzio::IdxHeader h;
  h.box = box;
  hzio::Field f = hzio::Field::Parse("data " + Option(argc, argv, "--dtype", "float32"), 6);
  const std::string compression = Option(argc, argv, "--compression", "raw");
  f.compression = compression == "raw" ? "" : compression;
  f.hz_layout = Option(argc, argv, "--layout", "rowmajor") == "hzorder";
  h.fields.push_back(f);
  h.bits_per_block = std::stoi(Option(argc, argv, "--bitsperblock", "0"));
  h.blocks_per_file = std::stoll(Option(argc, argv, "--blocksperfile", "0"));
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "3"));
  std::vector<uint8_t> data(static_cast<size_t>(f.dtype.BytesFor(box.Size().Product())));
  std::ifstream(raw, std::ios::binary).read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size()));
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    std::filesystem::remove_all(std::filesystem::path(out).replace_extension(""));
    std::filesystem::remove(out);
    auto t0 = Clock::now();
    hzio::DatasetWriter w(out, h);
    w.Write(0, 0, box, data.data());
    w.Finish();
    times.push_back(Seconds(t0, Clock::now()));
  }
  std::cout << Json(times, static_cast<int64_t>(data.size()), ",\"compression\":\"" + compression + "\"") << "\n";
  return 0;
}

int Memcpy(int argc, char** argv) {
  const int64_t bytes = std::stoll(argv[2]);
  const int repeat = std::stoi(Option(argc, argv, "--repeat", "5"));
  std::vector<uint8_t> a(static_cast<size_t>(bytes), 3), b(static_cast<size_t>(bytes), 0);
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = Clock::now();
    std::memcpy(b.data(), a.data(), a.size());
    times.push_back(Seconds(t0, Clock::now()));
    a[static_cast<size_t>(i)] = b[static_cast<size_t>(bytes - 1 - i)];  // keep the copy observable
  }
  std::cout << Json(times, bytes, "") << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 2 ? argv[1] : "";
    if (cmd == "read") return Read(argc, argv);
    if (cmd == "write" && argc > 3) return Write(argc, argv);
    if (cmd == "memcpy") return Memcpy(argc, argv);
    std::cerr << "usage: hzio-bench-core read IDX [--level H] [--repeat N] | write RAW OUT.idx --dims X,Y,Z "
                 "--dtype T [--compression C] [--layout L] [--repeat N] | memcpy BYTES [--repeat N]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hzio-bench-core: " << e.what() << "\n";
    return 1;
  }
}
