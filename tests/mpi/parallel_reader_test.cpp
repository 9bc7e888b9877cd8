// Parallel reader (issue 5): restarts with any rank count and decomposition are bit-exact against
// the design.md §4 formula; every level equals the serial reader, whole-domain and sub-box, in
// both modes; aggregators stay balanced at every level; OpenVisus-written datasets read correctly;
// missing and corrupt files give the same error on every rank.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <mpi.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/mpi/collective.h"
#include "hzio/util/decomposition.h"
#include "hzio/mpi/node_share.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/access/synthetic.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

namespace fs = std::filesystem;
using testing::AllRanks;
using testing::ScratchDir;
using testing::SyntheticSpec;

using testing::Rank;
using testing::Ranks;

// Reads every field at full resolution with `comm`, each rank one cell of `grid` (a field at a
// time, every field into caller memory, every field into results it allocates), and checks the
// formula. Returns false on any rank's mismatch (collective on comm).
bool RestartMatchesFormula(MPI_Comm comm, const std::string& idx, const Point& grid, ReadMode mode) {
  ParallelReader reader(comm, idx, ReadOptions{mode, 0, true});
  const IdxHeader& h = reader.header();
  bool ok = true;
  for (int64_t t : h.time.List())
    for (size_t f = 0; f < h.fields.size(); ++f) {
      const Box cell = GridCell(h.box, grid, CommRank(comm));
      std::vector<Box> boxes;
      if (!cell.Empty()) boxes.push_back(cell);
      const std::vector<BoxData> data = reader.Read(static_cast<int>(f), t, -1, boxes);
      for (const BoxData& d : data) {
        ok = ok && d.grid.count == cell.Size();
        ok = ok && FirstSyntheticMismatch(h.fields[f].dtype, static_cast<int>(f), t, d.grid, d.bytes.data()) < 0;
      }
    }
  // Every field at once (how a restart reads its variables), into poisoned memory.
  for (int64_t t : h.time.List()) {
    const Box cell = GridCell(h.box, grid, CommRank(comm));
    std::vector<Box> boxes;
    if (!cell.Empty()) boxes.push_back(cell);
    std::vector<int> fields;
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<uint8_t*>> out;
    for (size_t f = 0; f < h.fields.size(); ++f) {
      fields.push_back(static_cast<int>(f));
      bytes.emplace_back(static_cast<size_t>(h.fields[f].dtype.BytesFor(cell.Size().Product())), 0xA5);
    }
    for (std::vector<uint8_t>& b : bytes) out.push_back(boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{b.data()});
    reader.ReadInto(fields, t, -1, boxes, out);
    for (size_t f = 0; f < h.fields.size() && !boxes.empty(); ++f)
      ok = ok && FirstSyntheticMismatch(h.fields[f].dtype, static_cast<int>(f), t, reader.ResultGrid(cell, -1),
                                        bytes[f].data()) < 0;
  }
  // Every field at once in reverse order, into results the reader allocates: data[k] is fields[k].
  for (int64_t t : h.time.List()) {
    const Box cell = GridCell(h.box, grid, CommRank(comm));
    std::vector<Box> boxes;
    if (!cell.Empty()) boxes.push_back(cell);
    std::vector<int> fields;
    for (size_t f = h.fields.size(); f-- > 0;) fields.push_back(static_cast<int>(f));
    const std::vector<std::vector<BoxData>> data = reader.Read(fields, t, -1, boxes);
    ok = ok && data.size() == fields.size();
    for (size_t k = 0; k < data.size(); ++k)
      for (const BoxData& d : data[k]) {
        const int f = fields[k];
        ok = ok && d.grid.count == cell.Size();
        ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, t, d.grid, d.bytes.data()) < 0;
      }
  }
  return AllRanks(ok, comm);
}

const int kCounts[] = {1, 2, 3, 4, 8};

TEST(ParallelReader, RestartWithOtherRankCountsAndGridsIsBitExact) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{45, 31, 17};
  spec.fields = "p:float64,v:float32[3],c:uint8";
  spec.timesteps = 2;
  spec.bits_per_block = 10;
  spec.blocks_per_file = 8;
  // Written by all ranks, read by the first M ranks with slab and default grids.
  const std::string all = dir.File("all/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, all, spec, DefaultGrid(Ranks(), 3), 2, {});
  for (int m : kCounts) {
    if (m > Ranks()) continue;
    MPI_Comm sub = testing::FirstRanks(MPI_COMM_WORLD, m);
    if (sub != MPI_COMM_NULL) {
      EXPECT_TRUE(RestartMatchesFormula(sub, all, Point{m, 1, 1}, ReadMode::kTwoPhase)) << "M=" << m << " slabs";
      EXPECT_TRUE(RestartMatchesFormula(sub, all, DefaultGrid(m, 3), ReadMode::kTwoPhase)) << "M=" << m;
      EXPECT_TRUE(RestartMatchesFormula(sub, all, DefaultGrid(m, 3), ReadMode::kOnePhase)) << "M=" << m << " one-phase";
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // Written by the first N ranks (irregular grid), read by all ranks.
  spec.compression = "zip";
  for (int n : kCounts) {
    if (n > Ranks() || n == Ranks()) continue;
    const std::string idx = dir.File("n" + std::to_string(n) + "/visus.idx");
    MPI_Comm sub = testing::FirstRanks(MPI_COMM_WORLD, n);
    if (sub != MPI_COMM_NULL) {
      testing::WriteSynthetic(sub, idx, spec, Point{1, n, 1}, 1, {});
      MPI_Comm_free(&sub);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_TRUE(RestartMatchesFormula(MPI_COMM_WORLD, idx, Point{1, 1, Ranks()}, ReadMode::kTwoPhase)) << "N=" << n;
  }
}

// Reads every field of `idx` at every level H, each rank one slab of the whole domain and of a
// sub-box, into poisoned memory, and expects the serial reader's answer; `options` picks the mode.
void ExpectEveryLevelEqualsSerial(const std::string& idx, const Box& sub, const ReadOptions& options) {
  const std::shared_ptr<Dataset> serial = OpenDataset(idx);
  ParallelReader reader(MPI_COMM_WORLD, idx, options);
  const int maxh = reader.header().maxh();
  const int nfields = static_cast<int>(reader.header().fields.size());
  for (const Box& region : {reader.header().box, sub}) {
    const Box mine = GridCell(region, Point{1, Ranks(), 1}, Rank());
    for (int level = 0; level <= maxh; ++level) {
      for (int f = 0; f < nfields; ++f) {
        // A rank's cell may hold no sample of a coarse level; ask only when it does.
        std::vector<Box> boxes;
        const bool has = reader.HasSamples(mine, level);
        bool serial_has = true;
        try {
          (void)reader.layout().QueryGrid(mine, LevelRange{0, level});
        } catch (const Error&) {
          serial_has = false;
        }
        EXPECT_EQ(has, serial_has && !mine.Empty()) << "level " << level << " box " << mine.ToRangesString();
        if (has) boxes.push_back(mine);
        // Into poisoned memory: the read must write every sample of the result itself.
        std::vector<std::vector<uint8_t>> got;
        std::vector<uint8_t*> out;
        const DType& dtype = reader.header().fields[static_cast<size_t>(f)].dtype;
        for (const Box& b : boxes)
          got.emplace_back(static_cast<size_t>(dtype.BytesFor(reader.ResultGrid(b, level).NumSamples())), 0xA5);
        for (std::vector<uint8_t>& g : got) out.push_back(g.data());
        reader.ReadInto(f, 0, level, boxes, out);
        if (boxes.empty()) continue;
        BoxQuery q;
        q.box = mine;
        q.level = level;
        q.field = reader.header().fields[static_cast<size_t>(f)].name;
        const BoxResult want = serial->Read(q);
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(reader.ResultGrid(mine, level), want.grid) << "level " << level;
        EXPECT_EQ(static_cast<int64_t>(got[0].size()), want.data.ByteSize());
        EXPECT_TRUE(std::equal(got[0].begin(), got[0].end(), want.data.data()))
            << idx << " level " << level << " field " << f << " mode " << static_cast<int>(options.mode) << " box "
            << mine.ToRangesString();
      }
    }
  }
}

ReadOptions Mode(ReadMode mode) {
  ReadOptions o;
  o.mode = mode;
  o.owner_reads_min_bytes = 0;  // small test datasets: own units and window rounds in every read
  return o;
}

// Every level H, whole domain and a sub-box, two-phase and one-phase: equal to the serial reader.
TEST(ParallelReader, EveryLevelEqualsSerialRead) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{40, 27, 13};
  spec.fields = "p:float64,rgb:uint8[3],v:float64[3]";  // gathered, gathered, scattered (block_reading.cpp)
  spec.bits_per_block = 8;
  spec.blocks_per_file = 4;
  // lz4 decodes block 0 whole; raw reads only the part of block 0 a coarse level needs.
  for (const char* compression : {"lz4", "raw"}) {
    spec.compression = compression;
    const std::string idx = dir.File(std::string("levels-") + compression + "/visus.idx");
    testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
    for (ReadMode mode : {ReadMode::kTwoPhase, ReadMode::kOnePhase})
      ExpectEveryLevelEqualsSerial(idx, Box(Point{5, 3, 2}, Point{33, 20, 11}), Mode(mode));
  }
}

// Datasets with fewer blocks than aggregators are read in sub-blocks (aligned hz sub-ranges of
// the file's blocks): hz and row-major layouts, raw and zip, every level, equal to the serial
// reader. Of a raw hz block each aggregator then reads only its sub-blocks, not the whole block.
TEST(ParallelReader, SubBlockPlansEqualSerialRead) {
  ScratchDir dir;
  for (const bool hz : {true, false}) {
    for (const char* compression : {"raw", "zip"}) {
      const std::string idx = dir.File(std::string(hz ? "hz-" : "rm-") + compression + "/visus.idx");
      IdxHeader h;
      h.box = Box(Point{0, 0, 0}, Point{40, 27, 13});
      for (const char* spec : {"p:float64", "rgb:uint8[3]"}) {
        Field f = ParseFieldList(spec)[0];
        f.hz_layout = hz;
        f.compression = std::string(compression) == "raw" ? "" : compression;
        h.fields.push_back(f);
      }
      h.bits_per_block = 14;  // 2 blocks: fewer than any aggregator count needs
      h.Validate("visus");
      if (Rank() == 0) {
        DatasetWriter w(idx, h);
        for (int f = 0; f < 2; ++f) {
          const Grid all = DenseGrid(h.box);
          std::vector<uint8_t> data(static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(all.NumSamples())));
          FillSynthetic(h.fields[static_cast<size_t>(f)].dtype, f, 0, all, data.data());
          w.Write(f, 0, h.box, data.data());
        }
        w.Finish();
      }
      MPI_Barrier(MPI_COMM_WORLD);
      ExpectEveryLevelEqualsSerial(idx, Box(Point{5, 3, 2}, Point{33, 20, 11}), Mode(ReadMode::kTwoPhase));
      if (!hz || std::string(compression) != "raw") continue;
      ParallelReader reader(MPI_COMM_WORLD, idx);
      (void)reader.Read(0, 0, -1, {GridCell(h.box, Point{1, Ranks(), 1}, Rank())});
      // Only an aggregator boundary inside a sub-block (2^12 samples here) makes two read it.
      const int64_t payload = h.fields[0].dtype.BytesFor(int64_t{2} << 14);
      const int64_t unit = h.fields[0].dtype.BytesFor(int64_t{1} << 12);
      EXPECT_LE(reader.stats().file_bytes, payload + (reader.stats().aggregators - 1) * unit + 4096)
          << "whole blocks were read by every aggregator sharing them";
    }
  }
}

// design.md §7: max/mean bytes per aggregator <= 1.25 at every level, full down to 1/512 of the
// samples, for a 1024x1024x512 dataset read with 8 ranks (the plan is what the reader executes).
TEST(ParallelReader, AggregatorsStayBalancedAtEveryLevel) {
  IdxHeader h;
  h.box = Box(Point{0, 0, 0}, Point{1024, 1024, 512});
  Field f;
  f.name = "density";
  f.dtype = DType::Parse("float32");
  h.fields.push_back(f);
  h.Validate("visus");
  const BlockLayout layout(h.bitmask, h.bits_per_block);
  for (int level = h.maxh(); level >= h.maxh() - 9; --level) {
    const ReadPlan plan = PlanRegionRead(h, layout, h.box, level, 8);
    int64_t most = 0;
    for (int64_t a = 0; a < plan.aggregators; ++a) most = std::max(most, plan.Range(a).size());
    const double mean = static_cast<double>(plan.total()) / static_cast<double>(plan.aggregators);
    EXPECT_EQ(plan.aggregators, 8) << "level " << level;
    EXPECT_LE(static_cast<double>(most) / mean, 1.25) << "level " << level << ", " << plan.blocks.size() << " blocks";
  }
}

TEST(ParallelReader, ReportedAggregatorBytesAreEvenOnARealRead) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 32};
  spec.fields = "p:float32";
  spec.bits_per_block = 8;
  spec.blocks_per_file = 64;  // few files: coarse reads touch one file, still every aggregator works
  const std::string idx = dir.File("balance/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  ParallelReader reader(MPI_COMM_WORLD, idx);
  for (int level = reader.header().maxh(); level >= reader.header().maxh() - 6; --level) {
    const std::vector<Box> mine{GridCell(reader.header().box, DefaultGrid(Ranks(), 3), Rank())};
    (void)reader.Read(0, 0, level, mine);
    if (Rank() != 0) continue;
    const IoStats& s = reader.stats();
    ASSERT_EQ(static_cast<int64_t>(s.per_aggregator.size()), s.aggregators);
    int64_t most = 0, least = INT64_MAX, sum = 0;
    for (const AggregatorBytes& a : s.per_aggregator) {
      most = std::max(most, a.bytes);
      least = std::min(least, a.bytes);
      sum += a.bytes;
    }
    // The aggregator count is kept as the resolution drops, and bytes stay within 1.25 of the mean.
    EXPECT_EQ(s.aggregators, Ranks()) << "level " << level;
    const double ratio = static_cast<double>(most) * static_cast<double>(s.aggregators) / static_cast<double>(sum);
    EXPECT_LE(ratio, 1.25) << "level " << level << " (least " << least << ", most " << most << ")";
  }
}

// Datasets written by OpenVisus 2.2.149 (row-major and hz blocks, raw/zip/lz4, 2-D and 3-D).
TEST(ParallelReader, OpenVisusGoldenDatasetsMatchSerialRead) {
  const fs::path golden = HZIO_GOLDEN_DIR;
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(golden))
    if (e.path().extension() == ".idx") found.push_back(e.path().string());
  std::sort(found.begin(), found.end());
  ASSERT_FALSE(found.empty());
  for (const std::string& idx : found) {
    const std::shared_ptr<Dataset> serial = OpenDataset(idx);
    ParallelReader reader(MPI_COMM_WORLD, idx);
    const IdxHeader& h = reader.header();
    for (size_t f = 0; f < h.fields.size(); ++f) {
      for (int level : {h.maxh(), h.maxh() / 2}) {
        Point grid(h.dims(), 1);
        grid[h.dims() - 1] = Ranks();
        const Box mine = GridCell(h.box, grid, Rank());
        std::vector<Box> boxes;
        bool has = false;
        try {
          has = !mine.Empty() && reader.layout().QueryGrid(mine, LevelRange{0, level}).NumSamples() > 0;
        } catch (const Error&) {
        }
        if (has) boxes.push_back(mine);
        const std::vector<BoxData> got = reader.Read(static_cast<int>(f), h.time.Default(), level, boxes);
        if (!has) continue;
        BoxQuery q;
        q.box = mine;
        q.level = level;
        q.field = h.fields[f].name;
        const BoxResult want = serial->Read(q);
        EXPECT_TRUE(got[0].grid == want.grid && std::equal(got[0].bytes.begin(), got[0].bytes.end(), want.data.data()))
            << idx << " field " << h.fields[f].name << " level " << level;
      }
    }
  }
}

TEST(ParallelReader, MissingOrCorruptFileGivesTheSameErrorEverywhere) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{32, 32, 16};
  spec.fields = "p:float64";
  spec.bits_per_block = 8;
  spec.blocks_per_file = 8;
  const std::string idx = dir.File("broken/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  const std::vector<Box> mine{GridCell(Box(Point{0, 0, 0}, Point{32, 32, 16}), Point{1, 1, Ranks()}, Rank())};
  for (const char* damage : {"missing", "corrupt"}) {
    if (Rank() == 0) {
      const std::string victim = dir.File("broken/visus/0010.bin");
      if (std::string(damage) == "missing") {
        fs::rename(victim, victim + ".away");
      } else {
        fs::rename(victim + ".away", victim);
        fs::resize_file(victim, 100);  // shorter than its block table
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (ReadMode mode : {ReadMode::kTwoPhase, ReadMode::kOnePhase}) {
      std::string message;
      try {
        ParallelReader reader(MPI_COMM_WORLD, idx, ReadOptions{mode, 0, true});
        (void)reader.Read(0, 0, -1, mine);
      } catch (const Error& e) {
        message = e.what();
        EXPECT_EQ(e.code(), std::string(damage) == "missing" ? ErrorCode::kNotFound : ErrorCode::kCorrupt) << message;
      }
      EXPECT_NE(message.find("0010.bin"), std::string::npos) << damage << ": '" << message << "'";
      EXPECT_TRUE(testing::SameOnAllRanks(message)) << damage << ": " << message;
    }
  }
}


// A missing or malformed .idx fails the reader's constructor on every rank with the same error.
TEST(ParallelReader, MissingOrMalformedHeaderGivesTheSameErrorEverywhere) {
  ScratchDir dir;
  const std::string bad = dir.File("bad.idx");
  if (Rank() == 0) {
    std::ofstream out(bad);
    out << "(version)\n6\n(box)\n0 10 0\n";  // an odd number of box bounds
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string& path : {dir.File("absent.idx"), bad}) {
    std::string message;
    ErrorCode code = ErrorCode::kInternal;
    try {
      ParallelReader reader(MPI_COMM_WORLD, path);
    } catch (const Error& e) {
      message = e.what();
      code = e.code();
    }
    EXPECT_FALSE(message.empty()) << path;
    if (path == bad) EXPECT_NE(code, ErrorCode::kNotFound) << message;
    else EXPECT_EQ(code, ErrorCode::kNotFound) << message;
    EXPECT_TRUE(testing::SameOnAllRanks(message)) << path << ": " << message;
  }
}

// A header larger than what the first broadcast carries inline (16 KiB) reaches every rank whole.
TEST(ParallelReader, LargeHeaderReachesEveryRank) {
  ScratchDir dir;
  const std::string idx = dir.File("wide/visus.idx");
  IdxHeader h;
  h.box = Box(Point{0, 0, 0}, Point{8, 8, 8});
  for (int f = 0; f < 800; ++f) {
    Field field = ParseFieldList("field_with_a_long_name_" + std::to_string(f) + ":float32")[0];
    h.fields.push_back(field);
  }
  h.Validate("visus");
  if (Rank() == 0) {
    CreateEmptyDataset(idx, h);
    EXPECT_GT(fs::file_size(idx), 16u << 10);  // not ASSERT: rank 0 must still reach the barrier
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ParallelReader reader(MPI_COMM_WORLD, idx);
  ASSERT_EQ(reader.header().fields.size(), 800u);
  EXPECT_EQ(reader.header().fields[799].name, "field_with_a_long_name_799");
  EXPECT_TRUE(testing::SameOnAllRanks(reader.header().ToText()));
}

// Several boxes per rank, overlapping each other and other ranks' (a cell, the cell shifted, a thin
// slab through the whole domain), several fields in one call, at full resolution and coarser: every
// box equals the formula (each block placed into every box it meets, also by a single rank).
TEST(ParallelReader, SeveralOverlappingBoxesPerRankReadTheFormula) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{45, 31, 17};
  spec.fields = "p:float64,v:float64[3]";
  spec.bits_per_block = 9;
  spec.blocks_per_file = 8;
  const std::string idx = dir.File("boxes/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  ParallelReader reader(MPI_COMM_WORLD, idx);
  const IdxHeader& h = reader.header();
  const Box cell = GridCell(h.box, DefaultGrid(Ranks(), 3), Rank());
  Box shifted = cell;
  for (int d = 0; d < 3; ++d) {
    shifted.p1[d] = std::max<int64_t>(0, cell.p1[d] - 3);
    shifted.p2[d] = std::min<int64_t>(h.box.p2[d], cell.p2[d] + 5);
  }
  const Box slab(Point{0, 0, Rank() % 17}, Point{45, 31, Rank() % 17 + 2});
  bool ok = true;
  for (const int level : {h.maxh(), h.maxh() - 1, h.maxh() - 4}) {
    std::vector<Box> boxes;
    for (const Box& b : {cell, shifted, slab})
      if (!b.Empty() && reader.HasSamples(b, level)) boxes.push_back(b);
    std::vector<std::vector<std::vector<uint8_t>>> bytes(2);
    std::vector<std::vector<uint8_t*>> out(2);
    for (int f = 0; f < 2; ++f)
      for (const Box& b : boxes) {
        bytes[static_cast<size_t>(f)].emplace_back(
            static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(reader.ResultGrid(b, level).NumSamples())), 0xA5);
        out[static_cast<size_t>(f)].push_back(bytes[static_cast<size_t>(f)].back().data());
      }
    reader.ReadInto({0, 1}, 0, level, boxes, out);
    for (int f = 0; f < 2; ++f)
      for (size_t i = 0; i < boxes.size(); ++i)
        ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, reader.ResultGrid(boxes[i], level),
                                          bytes[static_cast<size_t>(f)][i].data()) < 0;
    EXPECT_TRUE(ok) << "level " << level << ", " << boxes.size() << " boxes on rank " << Rank();
  }
  EXPECT_TRUE(AllRanks(ok));
}

// A restart read (every rank its own cell of a power-of-two dataset): the units only one rank
// needs are read by that rank, not through the window (unit_readers.h) — at power-of-two rank
// counts most of the bytes —, into poisoned memory, equal to the formula, to a read with
// owner_reads off and to the default (which does the same from the page cache, and whose minimum
// sends a read this small through the window once the files are out of the cache). A
// rank that alone reads the whole domain while the others ask for nothing reads nothing for itself
// (one rank: everything), and gets the formula.
TEST(ParallelReader, RestartReadsOwnUnitsWithoutTheWindow) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 32};
  spec.fields = "p:float64,v:float64[3]";
  spec.bits_per_block = 10;
  spec.blocks_per_file = 16;
  const std::string idx = dir.File("own/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  ReadOptions small, windowed;
  small.owner_reads_min_bytes = 0;  // own units however few (by default a read this small with a
                                    // shared part goes wholly through the window)
  windowed.owner_reads = false;
  ParallelReader own(MPI_COMM_WORLD, idx, small), window(MPI_COMM_WORLD, idx, windowed),
      by_default(MPI_COMM_WORLD, idx);
  const IdxHeader& h = own.header();
  const auto read = [&](ParallelReader& reader, const std::vector<Box>& boxes, int level) {
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<uint8_t*>> out(2);
    for (int f = 0; f < 2; ++f)
      for (const Box& b : boxes) {
        bytes.emplace_back(static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(reader.ResultGrid(b, level).NumSamples())), 0xA5);
        out[static_cast<size_t>(f)].push_back(bytes.back().data());
      }
    reader.ReadInto({0, 1}, 0, level, boxes, out);
    return bytes;
  };
  bool ok = true;
  const Box cell = GridCell(h.box, DefaultGrid(Ranks(), 3), Rank());
  for (const int level : {h.maxh(), h.maxh() - 2}) {
    const std::vector<std::vector<uint8_t>> a = read(own, {cell}, level), b = read(window, {cell}, level),
                                            c = read(by_default, {cell}, level);
    ok = ok && a == b && a == c;
    int64_t default_own = by_default.stats().local_own_bytes;
    MPI_Allreduce(MPI_IN_PLACE, &default_own, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    // 4 MiB in all, below the default's 64 MiB per rank, but just written: in the page cache, so
    // the default reads own units as well.
    if ((Ranks() & (Ranks() - 1)) == 0 && level == h.maxh()) {
      EXPECT_GE(default_own, by_default.stats().data_bytes * 3 / 4) << "level " << level;
    }
    for (int f = 0; f < 2; ++f)
      ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, own.ResultGrid(cell, level),
                                        a[static_cast<size_t>(f)].data()) < 0;
    int64_t sums[2] = {own.stats().local_own_bytes, window.stats().local_own_bytes};
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(sums[1], 0) << "owner_reads off still read units for a rank";
    if ((Ranks() & (Ranks() - 1)) == 0 && level == h.maxh()) {  // cells aligned with the fine blocks
      EXPECT_GE(sums[0], own.stats().data_bytes * 3 / 4) << "level " << level;
      EXPECT_LE(own.stats().rounds, 1);
      EXPECT_EQ(own.stats().aggregators, Ranks());
    }
    if (Ranks() == 1) {  // everything its own: no window, no round
      EXPECT_EQ(sums[0], own.stats().data_bytes) << "level " << level;
      EXPECT_EQ(own.stats().rounds, 0);
    }
  }
  // Out of the page cache, the default sends this small read with a shared part wholly through the
  // window (a read in two parts costs a second trip to the disk, unit_readers.h).
  if (testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) {
    const std::vector<std::vector<uint8_t>> cold = read(by_default, {cell}, h.maxh());
    EXPECT_EQ(by_default.stats().local_own_bytes, Ranks() == 1 ? by_default.stats().data_bytes : 0);
    for (int f = 0; f < 2; ++f)
      ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, own.ResultGrid(cell, h.maxh()),
                                        cold[static_cast<size_t>(f)].data()) < 0;
  }
  // Rank 0 alone asks for the whole domain.
  std::vector<Box> all;
  if (Rank() == 0) all.push_back(h.box);
  const std::vector<std::vector<uint8_t>> whole = read(own, all, h.maxh());
  if (Rank() == 0)
    for (int f = 0; f < 2; ++f)
      ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, own.ResultGrid(h.box, h.maxh()),
                                        whole[static_cast<size_t>(f)].data()) < 0;
  EXPECT_EQ(own.stats().local_own_bytes, Ranks() == 1 ? own.stats().data_bytes : 0);
  EXPECT_TRUE(AllRanks(ok)) << "a read of own units differs from the formula or from the windowed read";
}

// The small restart of the two tests below (the S3D case at 64³ per rank): 2^16-sample blocks over
// a 64 × 64 × 128 domain whose extra z bit is its finest level, so no block fits a rank's cell.
SyntheticSpec SmallRestartSpec(const std::string& compression) {
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 128};
  spec.fields = "p:float32,v:float64[3]";
  spec.bits_per_block = 16;
  spec.compression = compression;
  return spec;
}

// Whether some node runs more ranks than it has CPUs, as a reader's agreed choice says (collective).
bool SomeNodeShortOfCpus() { return !AllRanks(!ThisNode(MPI_COMM_WORLD).ShortOfCpus()); }

// Fields 0 and 1 of `cell` at maxh, read into poisoned memory (collective).
struct CellRead {
  bool ok;      // every rank's samples equal the formula
  int64_t own;  // bytes of units read by their own rank, over all ranks
  std::vector<std::vector<uint8_t>> bytes;  // this rank's, per field
};
CellRead ReadTwoFieldsOfCell(ParallelReader& reader, const Box& cell) {
  const IdxHeader& h = reader.header();
  const Grid grid = reader.ResultGrid(cell, h.maxh());
  CellRead r{true, 0, {}};
  std::vector<std::vector<uint8_t*>> out(2);
  for (int f = 0; f < 2; ++f) {
    r.bytes.emplace_back(static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(grid.NumSamples())), 0xA5);
    out[static_cast<size_t>(f)].push_back(r.bytes.back().data());
  }
  reader.ReadInto({0, 1}, 0, h.maxh(), {cell}, out);
  for (int f = 0; f < 2; ++f)
    r.ok = r.ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, grid,
                                          r.bytes[static_cast<size_t>(f)].data()) < 0;
  r.ok = AllRanks(r.ok);
  r.own = reader.stats().local_own_bytes;
  MPI_Allreduce(MPI_IN_PLACE, &r.own, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

// Blocks larger than the ranks' cells (the S3D case at 64³ per rank: 2^16-sample blocks over a
// 64 × 64 × 128 domain whose extra z bit is its finest level): no block is any rank's own. Read
// from the page cache, the units are cut finer so that they are (2^12 samples), and at 2 ranks the
// small shared rest (the coarse levels) is read by both ranks: no window round at all. Compressed
// fields are not cut finer (every reader would decode whole blocks): at 2 ranks they have no own
// units. Out of the cache, all goes through the window, in hz order for the raw fields (cut finer,
// the units are nearly all one rank's), unless the node has fewer CPUs than ranks (then long runs of
// own units are read by their ranks). Always equal to the formula and to a read with owner_reads
// off.
TEST(ParallelReader, SmallRestartFromThePageCacheCutsBlocksIntoOwnUnits) {
  for (const std::string compression : {"raw", "zip"}) {
    ScratchDir dir;
    const std::string idx = dir.File("s3d/visus.idx");
    const Point grid = DefaultGrid(Ranks(), 3);
    testing::WriteSynthetic(MPI_COMM_WORLD, idx, SmallRestartSpec(compression), grid, 1, {});
    ReadOptions windowed;
    windowed.owner_reads = false;
    ParallelReader by_default(MPI_COMM_WORLD, idx), window(MPI_COMM_WORLD, idx, windowed);
    const Box cell = GridCell(by_default.header().box, grid, Rank());
    const auto read = [&](ParallelReader& reader) {
      CellRead r = ReadTwoFieldsOfCell(reader, cell);
      return std::make_tuple(r.ok, r.own, reader.stats().data_bytes, std::move(r.bytes));  // data_bytes: of all ranks
    };
    const auto [cached_ok, cached_own, data, cached_bytes] = read(by_default);
    const auto [window_ok, window_own, window_data, window_bytes] = read(window);
    EXPECT_EQ(window_data, data);
    EXPECT_TRUE(cached_ok && window_ok) << compression << ": a read differs from the formula";
    EXPECT_TRUE(AllRanks(cached_bytes == window_bytes)) << compression;
    EXPECT_EQ(window_own, 0) << compression;
    if (compression == "zip") {
      if (Ranks() == 2) {
        EXPECT_EQ(cached_own, 0) << "compressed blocks were cut finer";
      }
    } else if (Ranks() == 2) {
      EXPECT_GE(cached_own, data) << "both ranks read every unit they need";
      EXPECT_EQ(by_default.stats().rounds, 0) << "a window round at 2 ranks";
    } else if ((Ranks() & (Ranks() - 1)) == 0) {
      EXPECT_GE(cached_own, data * 3 / 4) << Ranks() << " ranks";
    }
    EXPECT_FALSE(by_default.stats().hz_window) << compression << ": from the page cache";
    EXPECT_FALSE(window.stats().hz_window) << compression << ": owner_reads off";
    // On a node whose ranks outnumber its CPUs, long runs of own units are read by their ranks
    // from the disk too (ColdSmallRestartReadsOwnUnitsWhereRanksOutnumberCpus).
    const bool short_of_cpus = SomeNodeShortOfCpus();
    if (testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) {
      const auto [cold_ok, cold_own, cold_data, cold_bytes] = read(by_default);
      EXPECT_TRUE(cold_ok && AllRanks(cold_bytes == window_bytes)) << compression << ": a read from the disk differs";
      if (Ranks() == 1 || !short_of_cpus) {
        EXPECT_EQ(cold_own, Ranks() == 1 ? cold_data : 0) << compression << ": own units read from the disk";
      }
      // Raw units cut finer are nearly all one rank's: the window keeps them in hz order. Whole
      // compressed blocks are shared by the ranks' cells here: permuted by the aggregators.
      if (Ranks() > 1 && (Ranks() & (Ranks() - 1)) == 0 && cold_own == 0) {
        EXPECT_EQ(by_default.stats().hz_window, compression == "raw") << compression << " at " << Ranks() << " ranks";
      }
    }
  }
}

// A small restart from the disk (32³ × S3D fields per rank, below owner_reads_min_bytes): on a node
// whose ranks outnumber its CPUs (this machine's 4- and 8-rank runs), own units in runs of about
// 1 MiB of the two fields read (the power-of-two grids of 4 and 8 ranks) are read by their ranks,
// since the window's second pass costs CPU time the node lacks; on a node with a CPU per rank all
// goes through the window. Equal to the formula and to a read with owner_reads off either way.
TEST(ParallelReader, ColdSmallRestartReadsOwnUnitsWhereRanksOutnumberCpus) {
  ScratchDir dir;
  const std::string idx = dir.File("s3d/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  SyntheticSpec spec;
  spec.dims = Point{32 * grid[0], 32 * grid[1], 32 * grid[2]};
  spec.fields = "s:float64[11],v:float64[3],p:float64,t:float64";  // fields 0 and 1 are read
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
  if (!testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) GTEST_SKIP() << "the files stay in the page cache (tmpfs)";
  ReadOptions windowed;
  windowed.owner_reads = false;
  ParallelReader by_default(MPI_COMM_WORLD, idx), window(MPI_COMM_WORLD, idx, windowed);
  const Box cell = GridCell(by_default.header().box, grid, Rank());
  const CellRead cold = ReadTwoFieldsOfCell(by_default, cell);
  const int64_t data = by_default.stats().data_bytes;
  const CellRead windowed_read = ReadTwoFieldsOfCell(window, cell);
  EXPECT_TRUE(cold.ok && windowed_read.ok) << "a read differs from the formula";
  EXPECT_TRUE(AllRanks(cold.bytes == windowed_read.bytes));
  EXPECT_EQ(windowed_read.own, 0);
  const bool short_of_cpus = SomeNodeShortOfCpus();
  if (Ranks() == 4 || Ranks() == 8) {
    if (short_of_cpus) {
      EXPECT_GE(cold.own, data / 2) << Ranks() << " ranks on a node short of CPUs";
    } else {
      EXPECT_EQ(cold.own, 0) << Ranks() << " ranks with a CPU each";
    }
  }
}

// A restart whose ranks each own most units but share the coarse levels (2^12-sample blocks over
// a 64 × 64 × 128 domain: at 2 ranks blocks 0-7 of 128, levels 0-15, are both ranks') reads the shared
// units on every rank that needs them rather than in a window round after the own units: at 2 ranks
// no round, from the page cache and from the disk. Equal to the formula and to a read with
// owner_reads off at every rank count.
TEST(ParallelReader, RestartReadsTheSharedCoarseLevelsOnEveryRankThatNeedsThem) {
  ScratchDir dir;
  const std::string idx = dir.File("restart/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  SyntheticSpec spec = SmallRestartSpec("raw");
  spec.bits_per_block = 12;
  spec.blocks_per_file = 32;
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
  ReadOptions own_units, windowed;
  own_units.owner_reads_min_bytes = 0;  // own units in a read this small (the default's minimum is far larger)
  windowed.owner_reads = false;
  ParallelReader reader(MPI_COMM_WORLD, idx, own_units), window(MPI_COMM_WORLD, idx, windowed);
  const Box cell = GridCell(reader.header().box, grid, Rank());
  const CellRead through_window = ReadTwoFieldsOfCell(window, cell);
  EXPECT_TRUE(through_window.ok);
  const auto expect_no_round = [&](const char* where) {
    const CellRead r = ReadTwoFieldsOfCell(reader, cell);
    EXPECT_TRUE(r.ok && AllRanks(r.bytes == through_window.bytes)) << where << ": a read differs";
    if (Ranks() == 2) {
      EXPECT_EQ(reader.stats().rounds, 0) << where << ": the shared units went through a window round";
      EXPECT_GT(r.own, reader.stats().data_bytes) << where << ": the shared units were not read by both ranks";
    }
  };
  expect_no_round("from the page cache");
  if (testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) expect_no_round("from the disk");
}

// owner_reads is agreed like the read's other options: one rank saying no turns it off for all, and
// every rank still takes the same collective steps (no rank probes the page cache or cuts units
// finer alone), from the page cache and from the disk.
TEST(ParallelReader, OneRankRefusingOwnerReadsTurnsThemOffForAll) {
  ScratchDir dir;
  const std::string idx = dir.File("s3d/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, SmallRestartSpec("raw"), grid, 1, {});
  ReadOptions options;
  options.owner_reads = Rank() != Ranks() - 1;
  ParallelReader reader(MPI_COMM_WORLD, idx, options);
  const Box cell = GridCell(reader.header().box, grid, Rank());
  const auto read = [&] {
    const CellRead r = ReadTwoFieldsOfCell(reader, cell);
    EXPECT_TRUE(r.ok) << "a read differs from the formula";
    EXPECT_EQ(r.own, 0) << "own units read though a rank said no";
    EXPECT_FALSE(reader.stats().hz_window);
  };
  read();
  if (testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) read();
}

// By default (DirectReads::kWhenUncached) a rank reads a file past the page cache only when most of
// what it reads there is not cached: a read of files just written is buffered, the same read from
// the disk comes with O_DIRECT (on ext4; file systems that refuse it fall back to buffered reads),
// kNever keeps it buffered and kAlways goes direct even from the cache. Every read equals the formula,
// both the own-unit path (a whole restart) and the window's (a small one, hz-ordered when cold).
TEST(ParallelReader, ReadsFilesPastThePageCacheWhenTheyAreNotInIt) {
  for (const bool small : {false, true}) {
    ScratchDir dir;
    const std::string idx = dir.File("restart/visus.idx");
    const Point grid = DefaultGrid(Ranks(), 3);
    SyntheticSpec spec = SmallRestartSpec("raw");
    if (!small) spec.dims = Point{128, 128, 64};  // 2^16-sample blocks each a rank's own (own units)
    testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
    ReadOptions never, always;
    never.direct_reads = DirectReads::kNever;
    always.direct_reads = DirectReads::kAlways;
    ParallelReader by_default(MPI_COMM_WORLD, idx), buffered(MPI_COMM_WORLD, idx, never),
        direct(MPI_COMM_WORLD, idx, always);
    const Box cell = GridCell(by_default.header().box, grid, Rank());
    // Whether every rank's read equals the formula, and the bytes read past the page cache by all.
    const auto read = [&](ParallelReader& reader) {
      const CellRead r = ReadTwoFieldsOfCell(reader, cell);
      int64_t direct_bytes = reader.stats().local_direct_bytes;
      MPI_Allreduce(MPI_IN_PLACE, &direct_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      return std::make_pair(r.ok, direct_bytes);
    };
    struct statfs fs {};
    const bool ext4 = ::statfs(dir.path().c_str(), &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC;
    const auto [cached_ok, cached_direct] = read(by_default);
    EXPECT_TRUE(cached_ok) << "small " << small << ": a read from the page cache differs from the formula";
    EXPECT_EQ(cached_direct, 0) << "small " << small << ": files in the page cache were read past it";
    const auto [forced_ok, forced_direct] = read(direct);
    EXPECT_TRUE(forced_ok) << "small " << small << ": a direct read differs from the formula";
    if (ext4) {
      EXPECT_GT(forced_direct, 0) << "small " << small << ": kAlways read nothing past the page cache";
    }
    if (!testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path())) continue;
    const auto [cold_ok, cold_direct] = read(by_default);
    EXPECT_TRUE(cold_ok) << "small " << small << ": a read from the disk differs from the formula";
    if (ext4) {
      EXPECT_GE(cold_direct, by_default.stats().data_bytes / 2) << "small " << small << ": cold files read buffered";
    }
    ASSERT_TRUE(testing::EvictFromPageCache(MPI_COMM_WORLD, dir.path()));
    const auto [never_ok, never_direct] = read(buffered);
    EXPECT_TRUE(never_ok) << "small " << small << ": a buffered read from the disk differs from the formula";
    EXPECT_EQ(never_direct, 0) << "small " << small << ": kNever read past the page cache";
  }
}

// Direct reads of many files, each in several pieces, the first piece of each file read ahead
// while the last of the file before it is placed: every rank's read equals the formula, at full
// resolution and coarser, and reads the same samples as a buffered read.
TEST(ParallelReader, DirectReadsAcrossFilesEqualTheFormula) {
  ScratchDir dir;
  SyntheticSpec spec = SmallRestartSpec("raw");
  spec.dims = Point{128, 128, 128};  // 56 MiB in 32 blocks
  spec.blocks_per_file = 8;          // four files of 14 MiB: two pieces each
  const std::string idx = dir.File("files/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
  ReadOptions always, never;
  always.direct_reads = DirectReads::kAlways;
  never.direct_reads = DirectReads::kNever;
  ParallelReader direct(MPI_COMM_WORLD, idx, always), buffered(MPI_COMM_WORLD, idx, never);
  const Box cell = GridCell(direct.header().box, grid, Rank());
  const CellRead d = ReadTwoFieldsOfCell(direct, cell);
  EXPECT_TRUE(d.ok) << "a direct read of four files differs from the formula";
  const CellRead b = ReadTwoFieldsOfCell(buffered, cell);
  EXPECT_TRUE(b.ok);
  EXPECT_EQ(d.bytes, b.bytes);
  const int coarse = direct.header().maxh() - 2;
  for (int field = 0; field < 2; ++field) {
    EXPECT_EQ(direct.Read(field, 0, coarse, {cell})[0].bytes, buffered.Read(field, 0, coarse, {cell})[0].bytes)
        << "field " << field << " at level " << coarse;
  }
}

// A block file cut short inside its payloads after a reader has read it (truncated between two
// reads) fails the reader's next direct reads on every rank with the same error naming the file;
// nothing hangs. (The reader sees the change when it looks the file up again, before any piece of
// it is read or read ahead.)
TEST(ParallelReader, FileCutShortFailsADirectReadEverywhere) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{128, 128, 192};  // one 24 MiB file: three pieces of a direct read, two read ahead
  spec.fields = "p:float64";
  spec.bits_per_block = 16;
  spec.blocks_per_file = 64;
  const std::string idx = dir.File("short/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
  ReadOptions options;
  options.direct_reads = DirectReads::kAlways;
  ParallelReader reader(MPI_COMM_WORLD, idx, options);
  const Box cell = GridCell(reader.header().box, grid, Rank());
  (void)reader.Read(0, 0, -1, {cell});  // whole: the file's table is now the reader's
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank() == 0) {
    const std::string victim = dir.File("short/visus/0000.bin");
    fs::resize_file(victim, fs::file_size(victim) * 3 / 5);  // inside the second piece
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string message;
    try {
      (void)reader.Read(0, 0, -1, {cell});
    } catch (const Error& e) {
      message = e.what();
      EXPECT_EQ(e.code(), ErrorCode::kCorrupt) << message;
    }
    EXPECT_NE(message.find("0000.bin"), std::string::npos) << "attempt " << attempt << ": '" << message << "'";
    EXPECT_TRUE(testing::SameOnAllRanks(message)) << message;
  }
}

// A rank's own units placed by several threads (ReadOptions::placing_threads), from pieces read
// directly and buffered, at full resolution and coarser, equal the formula; a thread count out of
// range is refused on every rank, naming the option.
TEST(ParallelReader, OwnUnitsPlacedByThreadsEqualTheFormula) {
  ScratchDir dir;
  const std::string idx = dir.File("threads/visus.idx");
  const Point grid = DefaultGrid(Ranks(), 3);
  SyntheticSpec spec = SmallRestartSpec("raw");
  spec.dims = Point{128, 128, 64};  // 2^16-sample blocks each a rank's own (own units)
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, grid, 1, {});
  for (const DirectReads how : {DirectReads::kAlways, DirectReads::kNever}) {
    ReadOptions options;
    options.placing_threads = 3;
    options.direct_reads = how;
    ParallelReader reader(MPI_COMM_WORLD, idx, options);
    const Box cell = GridCell(reader.header().box, grid, Rank());
    const CellRead r = ReadTwoFieldsOfCell(reader, cell);
    EXPECT_TRUE(r.ok) << "direct " << (how == DirectReads::kAlways) << ": units placed by threads differ from the formula";
    if ((Ranks() & (Ranks() - 1)) == 0) {  // cells aligned with the blocks: every unit one rank's
      EXPECT_GT(r.own, 0);
    }
    if (reader.stats().local_own_bytes > 0) {
      EXPECT_EQ(reader.stats().local_threads, 3);
    }
    // Coarser: unit 0 is read in part (not offered whole), the others placed as at full resolution.
    const IdxHeader& h = reader.header();
    const int level = h.maxh() - 3;
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<uint8_t*>> out(2);
    const Grid coarse = reader.ResultGrid(cell, level);
    for (int f = 0; f < 2; ++f) {
      bytes.emplace_back(static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(coarse.NumSamples())), 0xA5);
      out[static_cast<size_t>(f)].push_back(bytes.back().data());
    }
    reader.ReadInto({0, 1}, 0, level, {cell}, out);
    bool ok = true;
    for (int f = 0; f < 2; ++f)
      ok = ok && FirstSyntheticMismatch(h.fields[static_cast<size_t>(f)].dtype, f, 0, coarse,
                                        bytes[static_cast<size_t>(f)].data()) < 0;
    EXPECT_TRUE(AllRanks(ok)) << "level " << level << ": units placed by threads differ from the formula";
  }
  ReadOptions wrong;
  wrong.placing_threads = Rank() == 0 ? -1 : 2;  // one rank's mistake fails the read everywhere
  ParallelReader reader(MPI_COMM_WORLD, idx, wrong);
  try {
    (void)ReadTwoFieldsOfCell(reader, reader.header().box);
    ADD_FAILURE() << "placing_threads -1 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("placing_threads -1"), std::string::npos) << e.what();
  }
}

// Blocks in missing files (when that is allowed) read back as the field's default value, like the
// serial reader's, at several levels, in both modes, into poisoned memory.
TEST(ParallelReader, AbsentBlocksReadAsTheDefaultValue) {
  ScratchDir dir;
  const std::string idx = dir.File("sparse/visus.idx");
  Field field;
  field.name = "p";
  field.dtype = DType::Parse("int32");
  field.default_value = 7;
  IdxHeader header = MakeHeader(Point{32, 32, 16}, {field}, 1, 8, 4, "raw", idx, Ranks());
  header.fields[0].default_value = 7;
  // Only rank 0 writes, and only a corner: most blocks (and files) stay absent.
  const Box corner(Point{0, 0, 0}, Point{8, 8, 4});
  std::vector<int32_t> values(static_cast<size_t>(corner.Size().Product()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>(100 + i);
  {
    ParallelWriter writer(MPI_COMM_WORLD, idx, header);
    if (Rank() == 0) writer.Add(0, 0, corner, reinterpret_cast<const uint8_t*>(values.data()));
    writer.Write();
  }
  // The writer stores every block inside the box (default-filled); remove every other block file
  // so the readers meet missing files (allowed here) and must fill their blocks themselves.
  if (Rank() == 0) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir.File("sparse/visus")))
      if (e.path().extension() == ".bin") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_GT(files.size(), 2u);
    for (size_t i = 1; i < files.size(); i += 2) fs::remove(files[i]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::shared_ptr<Dataset> serial = OpenDataset(idx);
  const Box mine = GridCell(header.box, Point{1, 1, Ranks()}, Rank());
  for (ReadMode mode : {ReadMode::kTwoPhase, ReadMode::kOnePhase}) {
    ParallelReader reader(MPI_COMM_WORLD, idx, ReadOptions{mode, 0, false});
    for (int level : {header.maxh(), header.maxh() - 3, 2}) {
      std::vector<Box> boxes;
      if (reader.HasSamples(mine, level)) boxes.push_back(mine);
      std::vector<uint8_t> got(boxes.empty() ? 0 : static_cast<size_t>(4 * reader.ResultGrid(mine, level).NumSamples()), 0xA5);
      reader.ReadInto(0, 0, level, boxes, boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{got.data()});
      if (boxes.empty()) continue;
      BoxQuery q;
      q.box = mine;
      q.level = level;
      q.field = "p";
      const BoxResult want = serial->Read(q);
      ASSERT_EQ(static_cast<int64_t>(got.size()), want.data.ByteSize());
      EXPECT_TRUE(std::equal(got.begin(), got.end(), want.data.data())) << "level " << level << " mode " << static_cast<int>(mode);
      int32_t first_default = 0;
      std::memcpy(&first_default, got.data() + got.size() - 4, 4);  // the far corner was never written
      EXPECT_EQ(first_default, 7);
    }
  }
}

}  // namespace
}  // namespace hzio::mpi
