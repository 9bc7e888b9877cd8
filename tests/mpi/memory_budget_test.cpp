// Bounded memory (issue 18): the parallel writer and reader under a memory budget small enough to
// force several rounds give the same files and the same samples as one round, equal to the
// design.md §4 formula; the rounds are planned from the budget alone.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <mpi.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "hzio/access/synthetic.h"
#include "hzio/format/block_files.h"
#include "hzio/format/idx_header.h"
#include "hzio/storage/file.h"
#include "hzio/hz/block_layout.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/node_share.h"
#include "hzio/mpi/parallel_reader.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/mpi/write_rounds.h"
#include "hzio/util/decomposition.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

using testing::AllRanks;
using testing::ScratchDir;
using testing::SyntheticSpec;

using testing::Rank;
using testing::Ranks;

void ExpectNoProblems(const std::vector<std::string>& problems) {
  for (const std::string& p : problems) ADD_FAILURE() << p;
}

IdxHeader HeaderOf(const SyntheticSpec& spec) {
  return MakeHeader(spec.dims, ParseFieldList(spec.fields), spec.timesteps, spec.bits_per_block, spec.blocks_per_file,
                    spec.compression, "/tmp/visus.idx", Ranks());
}

// Pure planning: blocks per file left to their default give every aggregator whole files of its
// own (a power of two, never beyond the 128 MiB default); a size the caller chose is kept.
TEST(FileAggregation, DefaultFilesGiveEveryAggregatorFilesOfItsOwn) {
  // 64^3 x 16 float64: 2^16-sample blocks of 8 MiB, 4 blocks (one 32 MiB file by the header default).
  const Point dims{64, 64, 64};
  const std::vector<Field> fields = ParseFieldList("a:float64[4],b:float64[4],c:float64[4],d:float64[4]");
  for (const int ranks : {1, 2, 3, 4, 8}) {
    const IdxHeader h = MakeHeader(dims, fields, 1, 0, 0, "raw", "/tmp/visus.idx", ranks);
    ASSERT_EQ(h.total_blocks(), 4u);
    const int64_t files = 4 / h.blocks_per_file;
    EXPECT_EQ(h.blocks_per_file & (h.blocks_per_file - 1), 0) << ranks;
    EXPECT_GE(files, std::min(ranks, 4)) << ranks;
    EXPECT_LT(files, 2 * ranks) << ranks;  // as large as that allows
    // More ranks than blocks: one block per file, and the raw blocks are split between aggregators.
    EXPECT_EQ(FileAggregation(h, 0, ranks).whole_files(), ranks <= 4) << ranks;
  }
  // Large timesteps keep files of 128 MiB: 1024^3 float32 in 256 KiB blocks at 8 ranks.
  EXPECT_EQ(MakeHeader(Point{1024, 1024, 1024}, ParseFieldList("t:float32"), 1, 0, 0, "raw", "/tmp/visus.idx", 8)
                .blocks_per_file,
            512);
  // A size the caller gave is kept, even where it leaves aggregators sharing a file.
  EXPECT_EQ(MakeHeader(dims, fields, 1, 0, 4, "raw", "/tmp/visus.idx", 4).blocks_per_file, 4);
}

// Pure planning: rounds cover every file once and fit the budget (one file at least); each
// aggregator holds a contiguous range of them.
TEST(MemoryBudget, WriterRoundsCoverEveryFileWithinTheBudget) {
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 64};
  spec.fields = "p:float64,v:float32[3]";
  spec.bits_per_block = 12;
  spec.blocks_per_file = 4;
  const IdxHeader h = HeaderOf(spec);
  const FileAggregation whole(h, 0, 4);
  ASSERT_EQ(whole.num_files(), 16);
  const int64_t file_bytes = (8 + 12) * (int64_t{1} << 12) * 4;
  EXPECT_EQ(FileAggregation::Rounds(h, 0, 4, whole.MaxBufferBytes()).size(), 1u);
  for (const int64_t budget : {file_bytes, 2 * file_bytes + 1, file_bytes / 3, int64_t{1}}) {
    SCOPED_TRACE("budget " + std::to_string(budget));
    const std::vector<std::vector<Span>> rounds = FileAggregation::Rounds(h, 0, 4, budget);
    std::vector<int64_t> seen;
    for (const std::vector<Span>& r : rounds) {
      ASSERT_FALSE(r.empty());
      const FileAggregation plan(h, 0, 4, r);
      for (const Span& files : r)
        for (int64_t f = files.begin; f < files.end; ++f) seen.push_back(f);
      if (budget >= file_bytes) {
        EXPECT_LE(plan.MaxBufferBytes(), budget);
      }
      // A round below one file's bytes is one file, shared by the aggregators.
      if (budget < file_bytes) {
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r.front().size(), 1);
      }
      int64_t units = 0;
      for (const Span& u : plan.RoundUnits()) units += u.size();
      int64_t held = 0;
      for (int64_t a = 0; a < plan.aggregators(); ++a) {
        const Span u = plan.Units(a);
        held += u.size();
        if (u.size() > 0) {
          EXPECT_EQ(plan.AggregatorOfUnit(static_cast<uint64_t>(u.begin)), a);
          EXPECT_EQ(plan.AggregatorOfUnit(static_cast<uint64_t>(u.end - 1)), a);
        }
      }
      EXPECT_EQ(units, held);
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> every(16);
    std::iota(every.begin(), every.end(), 0);
    EXPECT_EQ(seen, every);
  }
  EXPECT_EQ(FileAggregation::Rounds(h, 0, 4, file_bytes).size(), 4u);  // one file per aggregator per round
  EXPECT_EQ(FileAggregation::Rounds(h, 0, 4, 2 * file_bytes).size(), 2u);
}

// Pure planning: a level of the HZ order whose files take several rounds is cut so that each round
// holds a part of every aggregator's share of it. The case of `hzio-mpi write --dims 1024,512,512
// --grid 2,1,1 --fields v:float32` (bitmask V0120..., whose first split is x, the axis the two ranks
// split): 8 files of 128 MiB, the finest level (the ranks' halves of the domain, in Z order) in
// files 4-7. Rounds of contiguous files gave files 4 and 5 (rank 0's box alone) to one round, so
// rank 1 had nothing to encode in it.
TEST(MemoryBudget, WriterRoundsOfALevelHoldPartOfEveryAggregatorsShare) {
  const IdxHeader h = MakeHeader(Point{1024, 512, 512}, ParseFieldList("v:float32"), 1, 0, 0, "raw", "/tmp/visus.idx", 2);
  ASSERT_EQ(h.blocks_per_file, 512);
  const int64_t file_bytes = FileAggregation::FileBufferBytes(h);
  const auto files_of = [&](int ranks, int64_t budget) {
    std::vector<std::vector<std::pair<int64_t, int64_t>>> out;
    for (const std::vector<Span>& r : FileAggregation::Rounds(h, 0, ranks, budget)) {
      out.emplace_back();
      for (const Span& s : r) out.back().emplace_back(s.begin, s.end);
    }
    return out;
  };
  using Round = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(files_of(2, file_bytes), (std::vector<Round>{{{0, 2}}, {{2, 4}}, {{4, 5}, {6, 7}}, {{5, 6}, {7, 8}}}));
  // Two files per aggregator fit: the finest level is one round, each aggregator its own half.
  EXPECT_EQ(files_of(2, 2 * file_bytes), (std::vector<Round>{{{0, 4}}, {{4, 8}}}));
  // Four aggregators, one file each: levels 27 and 28 (files 2-3, 4-7) fit one round each.
  EXPECT_EQ(files_of(4, file_bytes), (std::vector<Round>{{{0, 4}}, {{4, 8}}}));
  // One aggregator: the order of the files.
  EXPECT_EQ(files_of(1, file_bytes).size(), 8u);
  EXPECT_EQ(files_of(1, file_bytes)[5], (Round{{5, 6}}));
  const FileAggregation spread(h, 0, 2, std::vector<Span>{Span{4, 5}, Span{6, 7}});
  EXPECT_TRUE(spread.whole_files());
  EXPECT_EQ(spread.num_files(), 2);
  EXPECT_EQ(spread.Units(1).begin, 6 * 512);
  EXPECT_EQ(spread.AggregatorOfUnit(6 * 512 + 7), 1);
  EXPECT_EQ(spread.AggregatorOfUnit(4 * 512 + 511), 0);
  EXPECT_EQ(spread.RoundUnits().size(), 2u);
  EXPECT_EQ(spread.MaxBufferBytes(), file_bytes);
  // One range is a contiguous round; several that are not one per aggregator, or not ascending,
  // are refused.
  EXPECT_EQ(FileAggregation(h, 0, 2, std::vector<Span>{Span{4, 6}}).Units(1).begin, 5 * 512);
  EXPECT_THROW(FileAggregation(h, 0, 2, std::vector<Span>{Span{0, 1}, Span{4, 5}, Span{6, 7}}), Error);
  EXPECT_THROW(FileAggregation(h, 0, 2, std::vector<Span>{Span{6, 7}, Span{4, 5}}), Error);
}

TEST(MemoryBudget, ReaderRoundsSplitTheBlocksWithinTheBudget) {
  const Bitmask bitmask = Bitmask::Guess(Point{64, 64, 64});
  const BlockLayout layout(bitmask, 12);
  std::vector<uint64_t> blocks;
  for (uint64_t b = 0; b < 64; ++b) blocks.push_back(b);
  const int64_t sample_bytes = 20, block_bytes = sample_bytes << 12;
  EXPECT_EQ(PlanRounds(layout, blocks, 4, sample_bytes, 16 * block_bytes).size(), 1u);
  const std::vector<ReadPlan> rounds = PlanRounds(layout, blocks, 4, sample_bytes, 2 * block_bytes);
  ASSERT_EQ(rounds.size(), 8u);
  std::vector<uint64_t> seen;
  for (const ReadPlan& p : rounds) {
    EXPECT_LE(p.MaxAggregatorSamples() * sample_bytes, 2 * block_bytes);
    seen.insert(seen.end(), p.blocks.begin(), p.blocks.end());
  }
  EXPECT_EQ(seen, blocks);
  EXPECT_EQ(PlanRounds(layout, blocks, 4, sample_bytes, 1).size(), blocks.size());  // one block per round at least
}

// The writer in rounds: the same bytes as one round (raw and zip, whole and shared files, rounds
// that take part of every aggregator's share of a level, a power-of-two domain and one that needs
// fill), equal to the formula at every level.
TEST(MemoryBudget, WriterRoundsWriteTheSameFiles) {
  ScratchDir dir;
  struct Case {
    Point dims;
    int64_t blocks_per_file;
    std::string compression;
    int64_t budget = 4096;  // far below a file: one file per round, or part of one
  };
  // A block takes 21 KiB of buffer: 50 KiB hold one two-block file per aggregator, so the finest
  // levels (16 and 32 files) take several rounds each.
  const Case cases[] = {{Point{64, 64, 32}, 2, "raw"},   // many files: rounds of whole files
                        {Point{45, 31, 17}, 2, "zip"},   // fill, compressed
                        {Point{40, 27, 13}, 64, "raw"},  // one file: rounds of it, shared by the aggregators
                        {Point{40, 27, 13}, 64, "lz4"},
                        {Point{64, 64, 32}, 2, "raw", 50 << 10},
                        {Point{45, 31, 17}, 2, "zip", 50 << 10}};
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE("case " + std::to_string(n));
    SyntheticSpec spec;
    spec.dims = c.dims;
    spec.fields = "p:float64,v:float32[3],c:uint8";
    spec.timesteps = 2;
    spec.bits_per_block = 10;
    spec.blocks_per_file = c.blocks_per_file;
    spec.compression = c.compression;
    const std::string one = "one" + std::to_string(n), rounds = "rounds" + std::to_string(n);
    const IoStats single = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File(one + "/visus.idx"), spec,
                                                   DefaultGrid(Ranks(), 3), 1, {});
    EXPECT_EQ(single.rounds, 1);
    WriteOptions budget;
    budget.memory_budget = c.budget;
    budget.sync = n % 2 == 1;
    const IoStats many = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File(rounds + "/visus.idx"), spec,
                                                 DefaultGrid(Ranks(), 3), 2, budget);
    EXPECT_GE(many.rounds, c.blocks_per_file == 2 ? (c.budget > 4096 ? 2 : 8) : 1);
    EXPECT_EQ(many.data_bytes, single.data_bytes);
    EXPECT_EQ(many.file_bytes, single.file_bytes);
    ExpectNoProblems(testing::VerifySerialAllLevels(MPI_COMM_WORLD, dir.File(rounds + "/visus.idx")));
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) ExpectNoProblems(testing::CompareBlockFiles(dir.File(one), dir.File(rounds)));
    ++n;
  }
}

// Rounds written on the I/O thread while the next round is encoded (IoOverlap::kAlways, within
// the budget): the same bytes as rounds written one after the other, buffered and
// durable, raw (shared and whole files) and compressed.
TEST(MemoryBudget, OverlappedRoundsWriteTheSameFiles) {
  ScratchDir dir;
  struct Case {
    std::string compression;
    int64_t blocks_per_file, budget;
    bool sync;
    bool overlaps;
  };
  // A block takes 21 KiB of buffer. Two-block files in 128 KiB: whole files per aggregator in
  // rounds of half the budget. Four-block files in 64 KiB: one file per round, shared by up to 4
  // aggregators (a block each), whose two halves fit from 4 ranks on. 4 KiB: never (no overlap,
  // the one-buffer plan is all the budget allows).
  const Case cases[] = {{"raw", 2, 128 << 10, false, true},
                        {"zip", 2, 128 << 10, true, true},
                        {"raw", 4, 64 << 10, true, Ranks() >= 4},
                        {"lz4", 2, 4096, false, false}};
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE("case " + std::to_string(n));
    SyntheticSpec spec;
    spec.dims = Point{64, 64, 32};
    spec.timesteps = 2;
    spec.bits_per_block = 10;
    spec.blocks_per_file = c.blocks_per_file;
    spec.compression = c.compression;
    const std::string serial = "serial" + std::to_string(n), overlapped = "overlapped" + std::to_string(n);
    WriteOptions options;
    options.memory_budget = c.budget;
    options.sync = c.sync;
    options.overlap_io = IoOverlap::kNever;
    const IoStats one_by_one = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File(serial + "/visus.idx"), spec,
                                                       DefaultGrid(Ranks(), 3), 1, options);
    EXPECT_FALSE(one_by_one.overlapped);
    options.overlap_io = IoOverlap::kAlways;
    const IoStats overlapping = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File(overlapped + "/visus.idx"), spec,
                                                        DefaultGrid(Ranks(), 3), 1, options);
    EXPECT_EQ(overlapping.overlapped, c.overlaps);
    EXPECT_GT(overlapping.rounds, 2);
    EXPECT_EQ(overlapping.file_bytes, one_by_one.file_bytes);
    ExpectNoProblems(testing::VerifySerialAllLevels(MPI_COMM_WORLD, dir.File(overlapped + "/visus.idx")));
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) ExpectNoProblems(testing::CompareBlockFiles(dir.File(serial), dir.File(overlapped)));
    ++n;
  }
}

// The default overlaps where it pays: durable writes, and page-cache writes only where every rank
// has a CPU to spare (else the copy into the page cache takes the core the encoding needs).
TEST(MemoryBudget, RoundsOverlapByDefaultWhereItPays) {
  EXPECT_TRUE(OverlapPays(IoOverlap::kAuto, /*sync=*/true, 1));
  EXPECT_FALSE(OverlapPays(IoOverlap::kAuto, false, 1));
  EXPECT_TRUE(OverlapPays(IoOverlap::kAuto, false, 2));
  EXPECT_FALSE(OverlapPays(IoOverlap::kNever, true, 8));
  EXPECT_TRUE(OverlapPays(IoOverlap::kAlways, false, 1));

  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 32};
  spec.bits_per_block = 10;
  spec.blocks_per_file = 2;
  int fewest_cpus = CpusPerRank(ThisNode(MPI_COMM_WORLD));
  MPI_Allreduce(MPI_IN_PLACE, &fewest_cpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  WriteOptions options;
  options.memory_budget = 128 << 10;  // rounds of whole files, with room for two halves
  for (const bool sync : {false, true}) {
    options.sync = sync;
    const std::string name = sync ? "durable/visus.idx" : "cached/visus.idx";
    const IoStats stats = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File(name), spec, DefaultGrid(Ranks(), 3), 1, options);
    EXPECT_GT(stats.rounds, 2);
    EXPECT_EQ(stats.overlapped, sync || fewest_cpus > 1) << "sync " << sync << ", fewest CPUs " << fewest_cpus;
    ExpectNoProblems(testing::VerifySerialAllLevels(MPI_COMM_WORLD, dir.File(name)));
  }
}

// A file of a middle round that cannot be written (a directory stands at its path) while later
// rounds are already being encoded: every rank reports the same kIo error naming the file, and no
// .idx is committed.
TEST(MemoryBudget, WriteErrorInAnOverlappedRoundFailsEveryRankAndCommitsNothing) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{64, 64, 32};
  spec.bits_per_block = 10;
  spec.blocks_per_file = 2;
  WriteOptions options;
  options.memory_budget = 128 << 10;  // whole files, one per aggregator and round
  options.sync = true;
  // Where the files go: a first write, whose names the second one reuses.
  const IoStats good = testing::WriteSynthetic(MPI_COMM_WORLD, dir.File("good/visus.idx"), spec,
                                               DefaultGrid(Ranks(), 3), 1, options);
  ASSERT_TRUE(good.overlapped);
  ASSERT_GT(good.rounds, 2);
  const IdxHeader header = IdxHeader::Parse(ReadWholeFile(dir.File("good/visus.idx")), "good/visus.idx");
  const std::string good_file = BlockFiles(header, dir.File("good")).FilePath(12 * 2, 0);  // file 12 of 64: not the last round
  const std::string bad_file = dir.File("bad") + good_file.substr(dir.File("good").size());
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank() == 0) std::filesystem::create_directories(bad_file);
  MPI_Barrier(MPI_COMM_WORLD);
  std::string message;
  ErrorCode code = ErrorCode::kInternal;
  try {
    testing::WriteSynthetic(MPI_COMM_WORLD, dir.File("bad/visus.idx"), spec, DefaultGrid(Ranks(), 3), 1, options);
    ADD_FAILURE() << "a write into " << bad_file << " (a directory) succeeded";
  } catch (const Error& e) {
    code = e.code();
    message = e.what();
  }
  EXPECT_EQ(code, ErrorCode::kIo) << message;
  EXPECT_NE(message.find(bad_file), std::string::npos) << message;
  EXPECT_TRUE(testing::SameOnAllRanks(message));
  EXPECT_FALSE(std::filesystem::exists(dir.File("bad/visus.idx")));
}

TEST(MemoryBudget, NegativeBudgetFailsEverywhereWithAClearError) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{16, 16, 16};
  WriteOptions bad;
  bad.memory_budget = Rank() == 0 ? -1 : 0;  // one rank's mistake reaches every rank
  std::string message;
  try {
    testing::WriteSynthetic(MPI_COMM_WORLD, dir.File("bad/visus.idx"), spec, DefaultGrid(Ranks(), 3), 1, bad);
    ADD_FAILURE() << "a negative memory budget was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    message = e.what();
  }
  EXPECT_NE(message.find("memory budget -1 must be >= 0"), std::string::npos) << message;
  EXPECT_TRUE(testing::SameOnAllRanks(message));
}

// The reader in rounds: every level, whole cells and a sub-box, several fields at once, the same
// samples as one round and as the formula.
// (`compression`: raw blocks are permuted straight from the file's bytes, zip ones decoded first,
// once per block for all the fields' units that share it: several fields are read in one pass.)
void ExpectReaderRoundsReadTheSameSamples(const std::string& compression) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{45, 31, 17};
  spec.fields = "p:float64,v:float32[3],c:uint8";
  spec.bits_per_block = 9;
  spec.blocks_per_file = 4;
  spec.compression = compression;
  const std::string idx = dir.File("data/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  ParallelReader whole(MPI_COMM_WORLD, idx);
  ReadOptions small;
  small.memory_budget = 2048;
  small.overlap = true;
  small.owner_reads = false;  // every unit through the window, in rounds (`whole` reads its own units)
  ParallelReader rounds(MPI_COMM_WORLD, idx, small);
  ReadOptions one_after_the_other = small;  // rounds of the whole budget, not overlapped
  one_after_the_other.overlap = false;
  ParallelReader sequential(MPI_COMM_WORLD, idx, one_after_the_other);
  ReadOptions direct = small;  // O_DIRECT pieces (buffered where the file system refuses them)
  direct.direct_reads = DirectReads::kAlways;
  ParallelReader uncached(MPI_COMM_WORLD, idx, direct);
  int64_t direct_bytes = 0;
  const IdxHeader& h = whole.header();
  const std::vector<int> fields{0, 1, 2};
  bool ok = true;
  int64_t most_rounds = 0;
  for (int level = 0; level <= h.maxh(); ++level) {
    for (const bool sub : {false, true}) {
      Box box = GridCell(h.box, DefaultGrid(Ranks(), 3), Rank());
      if (sub) box = Box(Point{3, 5, 2}, Point{41, 30, 11}).Intersect(GridCell(h.box, Point{Ranks(), 1, 1}, Rank()));
      std::vector<Box> boxes;
      if (!box.Empty() && whole.HasSamples(box, level)) boxes.push_back(box);
      std::vector<std::vector<uint8_t>> a, b, c, d;
      std::vector<std::vector<uint8_t*>> out_a, out_b, out_c, out_d;
      for (const int f : fields) {
        const int64_t bytes = boxes.empty() ? 0 : h.fields[static_cast<size_t>(f)].dtype.BytesFor(whole.ResultGrid(box, level).NumSamples());
        a.emplace_back(static_cast<size_t>(bytes), 0xA5);
        b.emplace_back(static_cast<size_t>(bytes), 0x5A);
        c.emplace_back(static_cast<size_t>(bytes), 0x3C);
        d.emplace_back(static_cast<size_t>(bytes), 0xC3);
        out_a.push_back(boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{a.back().data()});
        out_b.push_back(boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{b.back().data()});
        out_c.push_back(boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{c.back().data()});
        out_d.push_back(boxes.empty() ? std::vector<uint8_t*>{} : std::vector<uint8_t*>{d.back().data()});
      }
      whole.ReadInto(fields, 0, level, boxes, out_a);
      rounds.ReadInto(fields, 0, level, boxes, out_b);
      sequential.ReadInto(fields, 0, level, boxes, out_c);
      uncached.ReadInto(fields, 0, level, boxes, out_d);
      direct_bytes += uncached.stats().local_direct_bytes;
      most_rounds = std::max(most_rounds, rounds.stats().rounds);
      EXPECT_LE(whole.stats().rounds, 1);
      EXPECT_EQ(rounds.stats().overlapped, rounds.stats().rounds > 1);
      EXPECT_FALSE(sequential.stats().overlapped);
      for (size_t k = 0; k < fields.size(); ++k) {
        ok = ok && a[k] == b[k] && a[k] == c[k] && a[k] == d[k];
        if (!boxes.empty())
          ok = ok && FirstSyntheticMismatch(h.fields[k].dtype, fields[k], 0, rounds.ResultGrid(box, level),
                                            b[k].data()) < 0;
      }
    }
  }
  EXPECT_TRUE(AllRanks(ok)) << "a read in rounds (overlapped or not, O_DIRECT or not) differs from one round or "
                               "from the formula";
  // The scratch directory is on a disk file system here (ext4 takes O_DIRECT): the direct reader's
  // pieces went past the page cache (the refusal's fallback: ReadUncached's tests).
  struct statfs fs {};
  if (::statfs(dir.path().c_str(), &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC) {
    MPI_Allreduce(MPI_IN_PLACE, &direct_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(direct_bytes, 0);
  }
  EXPECT_GT(most_rounds, 4);  // every rank count, one rank too
}

TEST(MemoryBudget, ReaderRoundsReadTheSameSamples) { ExpectReaderRoundsReadTheSameSamples("raw"); }

TEST(MemoryBudget, ReaderRoundsReadTheSameSamplesOfCompressedBlocks) { ExpectReaderRoundsReadTheSameSamples("zip"); }

// A block file of a late round that is missing, or shorter than its table says (a short read),
// while the reads of later rounds run on the I/O thread beside the exchange: every rank reports the
// same error naming the file (kNotFound, kCorrupt), in the overlapped reader (every unit through
// the window) and in the sequential one (a rank's own units first), with buffered and with O_DIRECT
// reads (ReadOptions::direct_reads).
TEST(MemoryBudget, ReadErrorInAnOverlappedRoundFailsEveryRankNamingTheFile) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{64, 32, 32};
  spec.fields = "p:float64,v:float32[3]";
  spec.bits_per_block = 10;
  spec.blocks_per_file = 4;
  const std::string idx = dir.File("data/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  const IdxHeader header = IdxHeader::Parse(ReadWholeFile(idx), idx);
  const BlockLayout layout(header.bitmask, header.bits_per_block);
  // The file of the last block: read in the last round, on the I/O thread when overlapped.
  const std::string victim = BlockFiles(header, dir.File("data")).FilePath(layout.total_blocks() - 1, 0);
  const std::string victim_name = victim.substr(victim.rfind('/') + 1);
  const std::vector<Box> mine{GridCell(header.box, DefaultGrid(Ranks(), 3), Rank())};
  const auto read = [&](bool overlap, IoStats* stats, bool direct = false) {
    ReadOptions options;
    options.memory_budget = 16 << 10;
    options.overlap = overlap;
    options.owner_reads = !overlap;  // overlapped: every unit through the window; else own units first
    options.direct_reads = direct ? DirectReads::kAlways : DirectReads::kNever;
    ParallelReader reader(MPI_COMM_WORLD, idx, options);
    (void)reader.Read(1, 0, -1, mine);
    if (stats) *stats = reader.stats();
  };
  IoStats good;
  read(true, &good);
  ASSERT_TRUE(good.overlapped);
  ASSERT_GT(good.rounds, 2);
  const uintmax_t size = std::filesystem::file_size(victim);
  for (const char* damage : {"missing", "short"}) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (Rank() == 0) {
      if (std::string(damage) == "missing") {
        std::filesystem::rename(victim, victim + ".away");
      } else {
        std::filesystem::rename(victim + ".away", victim);
        std::filesystem::resize_file(victim, size - 1);  // the table is whole, the last payload short
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (const auto& [overlap, direct] : {std::pair{true, false}, std::pair{false, false}, std::pair{true, true},
                                         std::pair{false, true}}) {
      std::string message;
      ErrorCode code = ErrorCode::kInternal;
      try {
        read(overlap, nullptr, direct);
        ADD_FAILURE() << damage << ": a read of " << idx << " without all of " << victim << " succeeded";
      } catch (const Error& e) {
        code = e.code();
        message = e.what();
      }
      EXPECT_EQ(code, std::string(damage) == "missing" ? ErrorCode::kNotFound : ErrorCode::kCorrupt)
          << damage << ": " << message;
      EXPECT_NE(message.find(victim_name), std::string::npos) << damage << ": " << message;
      EXPECT_TRUE(testing::SameOnAllRanks(message)) << damage << ": " << message;
    }
  }
}

// Files of several pieces (2-4 MiB: PieceBytesFor, block_reading.h) read with O_DIRECT, the next piece in flight
// while one is placed: the formula at full resolution and one level down, as the buffered reader
// reads it, in overlapped rounds through the window and as a rank's own units.
TEST(MemoryBudget, DirectReadsOfFilesOfSeveralPiecesReadTheFormula) {
  ScratchDir dir;
  SyntheticSpec spec;
  spec.dims = Point{128, 128, 64};  // one file of 2 x 16 blocks: 32 MiB, many pieces
  spec.fields = "p:float64,v:float64[3]";
  const std::string idx = dir.File("data/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, spec, DefaultGrid(Ranks(), 3), 1, {});
  const IdxHeader header = IdxHeader::Parse(ReadWholeFile(idx), idx);
  const Box mine = GridCell(header.box, DefaultGrid(Ranks(), 3), Rank());
  bool ok = true;
  int64_t direct_bytes = 0;
  for (const int level : {header.maxh(), header.maxh() - 1}) {
    std::vector<std::vector<uint8_t>> buffered;
    for (const bool overlap : {false, true}) {
      for (const bool direct : {false, true}) {
        ReadOptions options;
        options.overlap = overlap;
        options.owner_reads = !overlap;  // overlapped: every unit through the window; else own units
        options.direct_reads = direct ? DirectReads::kAlways : DirectReads::kNever;
        options.memory_budget = 8 << 20;  // rounds (overlapped: halves of it)
        ParallelReader reader(MPI_COMM_WORLD, idx, options);
        for (int f = 0; f < 2; ++f) {
          const std::vector<BoxData> got = reader.Read(f, 0, level, {mine});
          ok = ok && got.size() == 1 &&
               FirstSyntheticMismatch(header.fields[static_cast<size_t>(f)].dtype, f, 0, got[0].grid,
                                      got[0].bytes.data()) < 0;
          if (!overlap && !direct) buffered.push_back(got[0].bytes);
          else ok = ok && got[0].bytes == buffered[static_cast<size_t>(f)];
          if (direct) direct_bytes += reader.stats().local_direct_bytes;
        }
      }
    }
  }
  EXPECT_TRUE(AllRanks(ok)) << "an O_DIRECT read differs from the formula or from the buffered read";
  struct statfs fs {};
  if (::statfs(dir.path().c_str(), &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC) {
    MPI_Allreduce(MPI_IN_PLACE, &direct_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(direct_bytes, int64_t{32} << 20);
  }
}

}  // namespace
}  // namespace hzio::mpi
