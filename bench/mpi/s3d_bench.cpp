// S3D-IO-like weak-scaling benchmark: hzio::mpi vs file-per-process POSIX, MPI-IO collective,
// parallel HDF5 and PnetCDF, beside two yardsticks (the HZ floor, hz_floor.h; for durable writes the
// disk floor, disk_floor.h), all in one run and interleaved (method order shuffled every
// repetition), medians of --reps runs. Prints one JSON line per measurement on rank 0.
//
//   mpiexec -n N hzio_mpi_bench write --per-rank 32 [--reps 5] [--dir DIR] [--bits-per-block B] [--blocks-per-file F] [--sync [--no-direct-io]] [--variants]
//   mpiexec -n N hzio_mpi_bench read  --per-rank 32 [--reps 5] [--dir DIR] [--levels] [--cold]
//   --only NAME,NAME...  runs just those methods (e.g. to profile one: `--only hzio`)
//   --fields s3d|float32 the S3D variables (16 float64 per sample, default) or one float32 field
//   --cold               drops the page cache (sync; echo 3 > /proc/sys/vm/drop_caches) before every
//                        read of every method, so each reads from the disk (needs root)
//   --warmup W           W untimed runs of every method before the timed ones (default 1): a process's
//                        first call pays the page faults of fresh buffers and the start of threads once
//                        (hzio's aggregation window; the floor's and the baselines' buffers are
//                        allocated untimed), which a simulation checkpointing repeatedly pays once
// Write samples remove their files right after (one method's output on disk at a time); reads
// write only the selected methods' files.
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/util/strings.h"
#include "disk_floor.h"
#include "hz_floor.h"
#include "s3d_case.h"

namespace {

using hzio_bench::S3dCase;
namespace fs = std::filesystem;

struct Options {
  std::string op, dir = "/tmp/hzio-mpi-bench", fields = "s3d";
  int64_t per_rank = 32;
  int reps = 5;
  int warmup = 1;
  int bits_per_block = 0;    // 0: the header default (idx-format.md §1.7)
  int64_t blocks_per_file = 0;  // 0: the header default
  bool variants = false, levels = false, sync = false, no_direct_io = false, cold = false;
  std::vector<std::string> only;  // method names to run (empty: all)
};

bool Selected(const Options& o, const std::string& method) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), method) != o.only.end();
}

int64_t g_per_rank = 0;  // for the report lines
int g_bits_per_block = 0;
int64_t g_blocks_per_file = 0;

// The HZ floor (hz_floor.h) needs aligned power-of-two boxes: the regular case.
bool FloorApplies(int64_t per_rank) { return (per_rank & (per_rank - 1)) == 0; }

struct Sample {
  double seconds = 0;        // from the first rank's start to the last rank's end (Timed)
  double rank0_seconds = 0;  // rank 0's clock from its start to the end of the last rank
  double cpu_seconds = 0;    // CPU time of all ranks' processes during the operation, summed
  hzio::mpi::PhaseTimes phases;
};

// The order of the methods in repetition `rep`: a fixed pseudo-random permutation, the same on
// every rank. (A rotation would keep each method behind the same predecessor, and a method that
// reads the files its predecessor just read finds them in the CPU caches.)
std::vector<size_t> RepetitionOrder(size_t methods, int rep) {
  std::vector<size_t> order(methods);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937 random(static_cast<uint32_t>(rep) * 2654435761u + 1);
  for (size_t i = methods; i > 1; --i) std::swap(order[i - 1], order[random() % i]);  // Fisher-Yates
  return order;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Whether every rank runs on this node, so that one monotonic clock times them all (asked once).
bool OneNode(MPI_Comm comm) {
  static int one = -1;
  if (one < 0) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size = 0, size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_size(comm, &size);
    MPI_Comm_free(&node);
    one = node_size == size ? 1 : 0;
  }
  return one == 1;
}

double ProcessCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Runs `op` on all ranks after a barrier and times it as IOR does: from the first rank's start to
// the last rank's end (the same on all ranks). Rank 0's clock from barrier to barrier, this
// benchmark's measure before, undercounts when the ranks outnumber the cores: ranks released from
// the barrier before rank 0 runs again work before its clock starts, and the methods whose ranks
// never wait for each other gain the most (the hz floor's 64³ read at 8 ranks on 2 cores was timed
// below its CPU time / 2: RESULTS.md, "the clock of a parallel operation"). Both are reported, with
// the CPU time, whose sum over ranks / cores bounds the time from below. Across nodes, without one
// clock, the time is rank 0's.
Sample Timed(MPI_Comm comm, const std::function<void()>& op) {
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC: one clock for all processes of a node
  const auto since_boot = [](Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); };
  MPI_Barrier(comm);
  const double cpu0 = ProcessCpuSeconds();
  const Clock::time_point start = Clock::now();
  op();
  const Clock::time_point end = Clock::now();
  double cpu = ProcessCpuSeconds() - cpu0;
  double mine[2] = {-since_boot(start), since_boot(end)}, latest[2];  // maxima: the earliest start, the latest end
  MPI_Allreduce(mine, latest, 2, MPI_DOUBLE, MPI_MAX, comm);  // returns once every rank has ended
  Sample s;
  s.rank0_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  MPI_Allreduce(MPI_IN_PLACE, &cpu, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Bcast(&s.rank0_seconds, 1, MPI_DOUBLE, 0, comm);
  s.cpu_seconds = cpu;
  s.seconds = OneNode(comm) ? latest[1] + latest[0] : s.rank0_seconds;
  return s;
}

void FreshDir(MPI_Comm comm, const std::string& dir) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  MPI_Barrier(comm);
}

// Removes a method's files (collective).
void RemoveDir(MPI_Comm comm, const std::string& dir) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) fs::remove_all(dir);
  MPI_Barrier(comm);
}

// Cold-cache reads: every dirty page written back, then the page cache, dentries and inodes
// dropped (the whole machine's: one node here). Throws when the kernel refuses (not root).
void DropCaches(MPI_Comm comm) {
  int rank, ok = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  if (rank == 0) {
    ::sync();
    const int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY);
    ok = fd >= 0 && ::write(fd, "3\n", 2) == 2;
    if (fd >= 0) ::close(fd);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) throw std::runtime_error("--cold: cannot write /proc/sys/vm/drop_caches (run as root)");
}

void Report(const S3dCase& c, const std::string& op, const std::string& method, int64_t bytes,
            const std::vector<Sample>& samples, const std::string& extra = "") {
  if (c.rank != 0) return;
  std::vector<double> t, r, h, a, io, rank0, cpu;
  for (const Sample& s : samples) {
    t.push_back(s.seconds);
    rank0.push_back(s.rank0_seconds);
    cpu.push_back(s.cpu_seconds);
    r.push_back(s.phases.restructure);
    h.push_back(s.phases.hz);
    a.push_back(s.phases.aggregate);
    io.push_back(s.phases.io);
  }
  const double m = Median(t);
  // Every repetition's time too, in repetition order: methods run back to back within a
  // repetition, so ratios of the same repetition's times cancel the machine's slow spells.
  std::string times;
  for (const double x : t) {
    char number[32];
    std::snprintf(number, sizeof number, "%s%.9g", times.empty() ? "" : ",", x);
    times += number;
  }
  std::printf("{\"op\":\"%s\",\"per_rank\":%lld,\"method\":\"%s\",\"ranks\":%d,\"bytes\":%lld,\"median_s\":%.6f,"
              "\"gib_per_s\":%.4f,\"rank0_median_s\":%.6f,\"cpu_median_s\":%.6f,\"phases\":{\"restructure\":%.6f,\"hz\":%.6f,\"aggregate\":%.6f,\"io\":%.6f},"
              "\"times\":[%s]%s}\n",
              op.c_str(), static_cast<long long>(g_per_rank),
              method.c_str(), c.ranks, static_cast<long long>(bytes), m,
              m > 0 ? static_cast<double>(bytes) / (1 << 30) / m : 0.0, Median(rank0), Median(cpu), Median(r), Median(h), Median(a), Median(io),
              times.c_str(), extra.c_str());
  std::fflush(stdout);
}

// The IDX layout of hzio's files: the header defaults (or --bits-per-block / --blocks-per-file),
// or as many files as ranks ("files=ranks": a block per rank's worth of samples, a block per file,
// so every aggregator writes a file of its own, as file-per-process does).
struct FileLayout {
  int bits_per_block = 0;
  int64_t blocks_per_file = 0;
};

FileLayout DefaultLayout() { return FileLayout{g_bits_per_block, g_blocks_per_file}; }

FileLayout FilesPerRankLayout(const S3dCase& c) {
  int bits = 0;
  while ((int64_t{1} << bits) < c.mine.Size().Product()) ++bits;
  return FileLayout{bits, 1};
}

hzio::IdxHeader HzioHeader(const S3dCase& c, const std::string& idx, const FileLayout& layout) {
  return hzio::mpi::MakeHeader(c.domain.p2, c.fields, 1, layout.bits_per_block, layout.blocks_per_file, "raw", idx,
                                 c.ranks);
}

Sample HzioWrite(const S3dCase& c, const std::string& dir, const hzio::mpi::WriteOptions& options,
                 const FileLayout& layout = DefaultLayout()) {
  hzio::mpi::PhaseTimes phases;
  Sample s = Timed(c.comm, [&] {
    hzio::mpi::ParallelWriter w(c.comm, dir + "/visus.idx", HzioHeader(c, dir + "/visus.idx", layout), options);
    for (size_t f = 0; f < c.fields.size(); ++f) w.Add(static_cast<int>(f), 0, c.mine, c.data[f].data());
    phases = w.Write().max;
  });
  s.phases = phases;
  return s;
}

// Reads every field of this rank's box into preallocated memory (like a restart into the
// simulation's arrays, and like the baselines, whose buffers are also allocated before timing).
Sample HzioRead(const S3dCase& c, const std::string& dir, const hzio::mpi::ReadOptions& options, int level,
                std::vector<std::vector<uint8_t>>* out, int64_t* bytes) {
  std::vector<std::vector<uint8_t>> scratch;
  if (!out) {
    const hzio::mpi::ParallelReader probe(c.comm, dir + "/visus.idx");
    for (const hzio::Field& f : c.fields)
      scratch.emplace_back(static_cast<size_t>(f.dtype.BytesFor(probe.ResultGrid(c.mine, level).NumSamples())), uint8_t{0xA5});  // pre-touched
    out = &scratch;
  }
  int64_t total = 0;
  hzio::mpi::PhaseTimes phases;
  Sample s = Timed(c.comm, [&] {
    hzio::mpi::ParallelReader r(c.comm, dir + "/visus.idx", options);
    std::vector<int> fields;
    std::vector<std::vector<uint8_t*>> outs;
    for (size_t f = 0; f < c.fields.size(); ++f) {
      fields.push_back(static_cast<int>(f));
      outs.push_back({(*out)[f].data()});
    }
    r.ReadInto(fields, 0, level, {c.mine}, outs);  // every variable in one collective read, as a restart does
    total = r.stats().data_bytes;
    phases = r.stats().max;
  });
  s.phases = phases;
  if (bytes) *bytes = total;
  return s;
}

void RunWrite(const Options& o, const S3dCase& c) {
  struct Method { std::string name; std::function<Sample(const std::string&)> run; };
  std::vector<Method> methods;
  hzio::mpi::WriteOptions plain;
  plain.sync = c.durable;
  plain.direct_io = !o.no_direct_io;
  methods.push_back({"hzio", [&](const std::string& d) { return HzioWrite(c, d, plain); }});
  // The same with MPI_Win_create windows: every transfer to another rank's aggregator is a put,
  // as between nodes (the default stores straight into aggregators on the same node).
  hzio::mpi::WriteOptions rma = plain;
  rma.windows = hzio::mpi::WindowKind::kRma;
  methods.push_back({"hzio rma-windows", [&](const std::string& d) { return HzioWrite(c, d, rma); }});
  const FileLayout files_per_rank = FilesPerRankLayout(c);
  methods.push_back({"hzio files=ranks", [&](const std::string& d) { return HzioWrite(c, d, plain, files_per_rank); }});
  // One encoding thread whatever the rank has (the A/B of encoding_threads, by name only).
  hzio::mpi::WriteOptions one_thread = plain;
  one_thread.encoding_threads = 1;
  if (!o.only.empty())
    methods.push_back({"hzio one thread", [&](const std::string& d) { return HzioWrite(c, d, one_thread); }});
  for (const hzio_bench::Baseline& b : hzio_bench::Baselines(!o.only.empty()))  // the control by name only
    methods.push_back({b.name, [&c, b](const std::string& d) { return Timed(c.comm, [&] { b.write(c, d); }); }});
  std::unique_ptr<hzio_bench::HzFloor> floor;
  if (FloorApplies(o.per_rank) && Selected(o, "hz floor")) {  // its encoded copy is as large as the case
    floor = std::make_unique<hzio_bench::HzFloor>(c);
    methods.push_back({"hz floor", [&](const std::string& d) { return Timed(c.comm, [&] { floor->Write(d); }); }});
  }
  // Durable only: in the page cache file-per-process is already the bound.
  if (c.durable) {
    methods.push_back(
        {"disk floor", [&](const std::string& d) { return Timed(c.comm, [&] { hzio_bench::WriteDiskFloor(c, d); }); }});
  }
  if (o.variants) {
    auto with = [&](const std::string& restructure, int64_t aggs) {
      hzio::mpi::WriteOptions w;
      w.restructure = hzio::RestructureSpec::Parse(restructure, 3);
      w.aggregators = aggs;
      w.sync = c.durable;
      w.direct_io = !o.no_direct_io;
      return [&c, w](const std::string& d) { return HzioWrite(c, d, w); };
    };
    // Rounds written one after the other, and always overlapped with the next round's encoding
    // (`hzio` overlaps them where IoOverlap::kAuto says it pays).
    hzio::mpi::WriteOptions serial_io = plain, overlapped_io = plain;
    serial_io.overlap_io = hzio::mpi::IoOverlap::kNever;
    overlapped_io.overlap_io = hzio::mpi::IoOverlap::kAlways;
    methods.push_back({"hzio no-overlap", [&c, serial_io](const std::string& d) { return HzioWrite(c, d, serial_io); }});
    methods.push_back({"hzio overlap", [&c, overlapped_io](const std::string& d) { return HzioWrite(c, d, overlapped_io); }});
    methods.push_back({"hzio restructure=expanded", with("expanded", 0)});
    methods.push_back({"hzio restructure=16x16x16", with("16x16x16", 0)});
    methods.push_back({"hzio restructure=8x8x8", with("8x8x8", 0)});
    for (int64_t a = 1; a < c.ranks; a *= 2) methods.push_back({"hzio aggregators=" + std::to_string(a), with("default", a)});
  }
  std::erase_if(methods, [&](const Method& m) { return !Selected(o, m.name); });
  const int64_t bytes = c.GlobalBytes();
  std::map<std::string, std::vector<Sample>> samples;
  for (int rep = -o.warmup; rep < o.reps; ++rep)  // negative: warm-up, not recorded
    for (size_t k = 0; k < methods.size(); ++k) {
      const size_t which = RepetitionOrder(methods.size(), std::max(rep, 0))[k];
      const Method& m = methods[which];
      const std::string dir = o.dir + "/w" + std::to_string(which);
      FreshDir(c.comm, dir);
      const Sample sample = m.run(dir);
      if (rep >= 0) samples[m.name].push_back(sample);
      RemoveDir(c.comm, dir);
    }
  for (const Method& m : methods) Report(c, "write", m.name, bytes, samples[m.name]);
}

void RunRead(const Options& o, const S3dCase& c) {
  const int64_t bytes = c.GlobalBytes();
  const std::string hz = o.dir + "/r-hzio";
  const std::string hz_files = o.dir + "/r-hzio-files";
  if (Selected(o, "hzio two-phase") || Selected(o, "hzio two-phase rma-windows") || Selected(o, "hzio one-phase") ||
      Selected(o, "hzio two-phase overlap") || Selected(o, "hzio two-phase direct") ||
      Selected(o, "hzio two-phase direct overlap") || Selected(o, "hzio two-phase window") ||
      Selected(o, "hzio two-phase own")) {
    FreshDir(c.comm, hz);
    HzioWrite(c, hz, {});
  }
  if (Selected(o, "hzio two-phase files=ranks")) {
    FreshDir(c.comm, hz_files);
    HzioWrite(c, hz_files, {}, FilesPerRankLayout(c));
  }
  struct Method { std::string name; std::function<Sample(std::vector<std::vector<uint8_t>>*)> run; };
  std::vector<Method> methods;
  const auto options = [](hzio::mpi::ReadMode mode, hzio::mpi::WindowKind windows) {
    hzio::mpi::ReadOptions r;
    r.mode = mode;
    r.windows = windows;
    return r;
  };
  const hzio::mpi::ReadOptions two_phase = options(hzio::mpi::ReadMode::kTwoPhase, hzio::mpi::WindowKind::kNodeShared);
  const hzio::mpi::ReadOptions two_phase_rma = options(hzio::mpi::ReadMode::kTwoPhase, hzio::mpi::WindowKind::kRma);
  const hzio::mpi::ReadOptions one_phase = options(hzio::mpi::ReadMode::kOnePhase, hzio::mpi::WindowKind::kNodeShared);
  methods.push_back({"hzio two-phase", [&](auto* out) { return HzioRead(c, hz, two_phase, -1, out, nullptr); }});
  hzio::mpi::ReadOptions overlap = two_phase;
  overlap.overlap = true;
  if (!o.only.empty())  // the A/B of the overlapped rounds, asked for by name only
    methods.push_back({"hzio two-phase overlap", [&](auto* out) { return HzioRead(c, hz, overlap, -1, out, nullptr); }});
  // Every piece read past the page cache, alone and with the overlapped rounds, and every piece
  // buffered: the A/B of the default (direct where a file is not cached), by name only.
  hzio::mpi::ReadOptions direct = two_phase, direct_overlap = overlap, buffered = two_phase;
  direct.direct_reads = direct_overlap.direct_reads = hzio::DirectReads::kAlways;
  buffered.direct_reads = hzio::DirectReads::kNever;
  if (!o.only.empty()) {
    methods.push_back({"hzio two-phase buffered", [&](auto* out) { return HzioRead(c, hz, buffered, -1, out, nullptr); }});
    methods.push_back({"hzio two-phase direct", [&](auto* out) { return HzioRead(c, hz, direct, -1, out, nullptr); }});
    methods.push_back(
        {"hzio two-phase direct overlap", [&](auto* out) { return HzioRead(c, hz, direct_overlap, -1, out, nullptr); }});
  }
  // One placing thread whatever the rank has (the A/B of placing_threads, by name only).
  hzio::mpi::ReadOptions one_thread = two_phase;
  one_thread.placing_threads = 1;
  if (!o.only.empty())
    methods.push_back({"hzio two-phase one thread", [&](auto* out) { return HzioRead(c, hz, one_thread, -1, out, nullptr); }});
  // Every unit through the window, none read by its own rank (the A/B of owner_reads, by name only).
  hzio::mpi::ReadOptions window = two_phase;
  window.owner_reads = false;
  if (!o.only.empty())
    methods.push_back({"hzio two-phase window", [&](auto* out) { return HzioRead(c, hz, window, -1, out, nullptr); }});
  // Own units at any size (the A/B of owner_reads_min_bytes, by name only).
  hzio::mpi::ReadOptions own = two_phase;
  own.owner_reads_min_bytes = 0;
  if (!o.only.empty())
    methods.push_back({"hzio two-phase own", [&](auto* out) { return HzioRead(c, hz, own, -1, out, nullptr); }});
  methods.push_back({"hzio two-phase rma-windows", [&](auto* out) { return HzioRead(c, hz, two_phase_rma, -1, out, nullptr); }});
  methods.push_back({"hzio one-phase", [&](auto* out) { return HzioRead(c, hz, one_phase, -1, out, nullptr); }});
  methods.push_back({"hzio two-phase files=ranks", [&](auto* out) { return HzioRead(c, hz_files, two_phase, -1, out, nullptr); }});
  for (const hzio_bench::Baseline& b : hzio_bench::Baselines(!o.only.empty())) {  // the control by name only
    if (!Selected(o, b.name)) continue;
    const std::string dir = o.dir + "/r-" + b.name;
    FreshDir(c.comm, dir);
    b.write(c, dir);
    methods.push_back({b.name, [&c, b, dir](auto* out) { return Timed(c.comm, [&] { b.read(c, dir, *out); }); }});
  }
  std::unique_ptr<hzio_bench::HzFloor> floor;
  const std::string floor_dir = o.dir + "/r-hz-floor";
  if (FloorApplies(o.per_rank) && Selected(o, "hz floor")) {
    floor = std::make_unique<hzio_bench::HzFloor>(c);
    FreshDir(c.comm, floor_dir);
    floor->Write(floor_dir);
    methods.push_back({"hz floor", [&](auto* out) { return Timed(c.comm, [&] { floor->Read(floor_dir, *out); }); }});
  }
  std::erase_if(methods, [&](const Method& m) { return !Selected(o, m.name); });
  std::map<std::string, std::vector<Sample>> samples;
  for (int rep = -o.warmup; rep < o.reps; ++rep)  // negative: warm-up, not recorded
    for (size_t k = 0; k < methods.size(); ++k) {
      const Method& m = methods[RepetitionOrder(methods.size(), std::max(rep, 0))[k]];
      std::vector<std::vector<uint8_t>> out;  // pre-touched (not zero pages), for every method alike
      for (const auto& d : c.data) out.emplace_back(d.size(), uint8_t{0xA5});
      if (o.cold) DropCaches(c.comm);
      const Sample sample = m.run(&out);
      if (rep >= 0) samples[m.name].push_back(sample);
      int ok = out == c.data ? 1 : 0, all = 0;  // every method must read back what was written
      MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, c.comm);
      if (!all && c.rank == 0) std::fprintf(stderr, "%s read back wrong data\n", m.name.c_str());
    }
  for (const Method& m : methods) Report(c, "read", m.name, bytes, samples[m.name]);
  if (!o.levels) return;
  const hzio::mpi::ParallelReader probe(c.comm, hz + "/visus.idx");
  const int maxh = probe.header().maxh();
  for (int k = 0; k <= 9 && k <= maxh; ++k) {
    for (const hzio::mpi::ReadOptions& mode : {two_phase, one_phase}) {
      std::vector<Sample> s;
      int64_t level_bytes = 0;
      for (int rep = 0; rep < o.reps; ++rep) s.push_back(HzioRead(c, hz, mode, maxh - k, nullptr, &level_bytes));
      Report(c, "read-level", std::string("hzio ") + (mode.mode == hzio::mpi::ReadMode::kTwoPhase ? "two-phase" : "one-phase"),
             level_bytes, s, ",\"level\":" + std::to_string(maxh - k) + ",\"fraction\":\"1/" + std::to_string(1 << k) + "\"");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--per-rank" && i + 1 < argc) o.per_rank = std::stoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) o.reps = std::stoi(argv[++i]);
    else if (a == "--warmup" && i + 1 < argc) o.warmup = std::stoi(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) o.dir = argv[++i];
    else if (a == "--bits-per-block" && i + 1 < argc) o.bits_per_block = std::stoi(argv[++i]);
    else if (a == "--blocks-per-file" && i + 1 < argc) o.blocks_per_file = std::stoll(argv[++i]);
    else if (a == "--variants") o.variants = true;
    else if (a == "--only" && i + 1 < argc) o.only = hzio::Split(argv[++i], ',');
    else if (a == "--levels") o.levels = true;
    else if (a == "--sync") o.sync = true;
    else if (a == "--no-direct-io") o.no_direct_io = true;
    else if (a == "--cold") o.cold = true;
    else if (a == "--fields" && i + 1 < argc) o.fields = argv[++i];
    else o.op = a;
  }
  int status = 0;
  try {
    g_per_rank = o.per_rank;
    g_bits_per_block = o.bits_per_block;
    g_blocks_per_file = o.blocks_per_file;
    S3dCase c = hzio_bench::MakeCase(MPI_COMM_WORLD, o.per_rank, o.fields);
    c.durable = o.sync;
    if (o.op == "write") RunWrite(o, c);
    else if (o.op == "read") RunRead(o, c);
    else { std::fprintf(stderr, "usage: hzio_mpi_bench write|read --per-rank N [--reps R] [--dir D] [--bits-per-block B] [--blocks-per-file F] [--sync] [--variants] [--levels] [--cold] [--fields s3d|float32] [--only M,M] [--warmup W]\n"); status = 2; }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hzio_mpi_bench: %s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
