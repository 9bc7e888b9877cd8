// The collective handles of the C API (hzio_mpi.h), run by ctest at several rank counts: writes
// with one decomposition read back with another at every level in both read modes, equal to
// design.md §4's formula, and collective failures (every rank gets the same status and message,
// whichever rank's input was bad).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "../mpi/mpi_test_support.h"
#include "hzio/format/dtype.h"
#include "hzio/storage/file.h"
#include "hzio/util/decomposition.h"
#include "hzio/access/synthetic.h"
#include "hzio_mpi.h"

namespace {

using hzio::mpi::testing::AllRanks;
using hzio::mpi::testing::FirstRanks;
using hzio::mpi::testing::SameOnAllRanks;
using hzio::mpi::testing::ScratchDir;

int Rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int Ranks() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Asserts every rank got `want` and the same message, holding `part`.
void ExpectCollectiveError(hzio_status status, hzio_status want, const std::string& part) {
  const std::string message = hzio_last_error();
  EXPECT_TRUE(AllRanks(status == want)) << hzio_status_name(status) << ": " << message;
  EXPECT_NE(message.find(part), std::string::npos) << message;
  EXPECT_TRUE(SameOnAllRanks(message)) << message;
}

#define ASSERT_HZIO_OK(call) ASSERT_EQ((call), HZIO_OK) << hzio_last_error()

struct FieldSpec {
  const char* name;
  const char* dtype;
};
constexpr FieldSpec kFields[] = {{"pressure", "float64"}, {"velocity", "float64[3]"}, {"species", "int32[2]"}};
const hzio::Point kDims{23, 19, 11};

hzio_desc* MakeDesc() {
  hzio_desc* d = nullptr;
  const int64_t size[3] = {kDims[0], kDims[1], kDims[2]};
  EXPECT_EQ(hzio_desc_create(3, size, &d), HZIO_OK) << hzio_last_error();
  for (const FieldSpec& f : kFields) EXPECT_EQ(hzio_desc_add_field(d, f.name, f.dtype), HZIO_OK) << hzio_last_error();
  EXPECT_EQ(hzio_desc_set_timesteps(d, 0, 1), HZIO_OK) << hzio_last_error();
  EXPECT_EQ(hzio_desc_set_bits_per_block(d, 7), HZIO_OK) << hzio_last_error();
  return d;
}

hzio::Grid GridOf(const int64_t* origin, const int64_t* stride, const int64_t* count) {
  return hzio::Grid{hzio::Point{origin[0], origin[1], origin[2]}, hzio::Point{stride[0], stride[1], stride[2]},
                    hzio::Point{count[0], count[1], count[2]}};
}

// Each rank writes two pieces of its cell of a PX x PY x PZ decomposition (both timesteps, all fields),
// with the hints in `info` when given (hzio_writer_create_mpi_info); `stats` gets the write's.
void WriteCollectively(MPI_Comm comm, const std::string& path, int flags = 0, MPI_Info info = MPI_INFO_NULL,
                       hzio_io_stats* stats_out = nullptr) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  hzio_desc* desc = MakeDesc();
  hzio_writer* w = nullptr;
  if (info == MPI_INFO_NULL) {
    ASSERT_HZIO_OK(hzio_writer_create_mpi(comm, path.c_str(), desc, flags, &w));
  } else {
    ASSERT_HZIO_OK(hzio_writer_create_mpi_info(comm, path.c_str(), desc, flags, info, &w));
  }
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  const hzio::Box domain(hzio::Point(3), kDims);
  std::vector<std::vector<uint8_t>> buffers;
  for (const hzio::Box& piece : hzio::RankPieces(domain, hzio::DefaultGrid(ranks, 3), 2, rank))
    for (int64_t t = 0; t < 2; ++t)
      for (int f = 0; f < 3; ++f) {
        const hzio::DType dtype = hzio::DType::Parse(kFields[f].dtype);
        const hzio::Grid g = hzio::DenseGrid(piece);
        buffers.emplace_back(static_cast<size_t>(dtype.BytesFor(g.NumSamples())));
        hzio::FillSynthetic(dtype, f, t, g, buffers.back().data());
        const hzio::Point size = piece.Size();
        ASSERT_HZIO_OK(hzio_writer_add(w, kFields[f].name, t, piece.p1.v.data(), size.v.data(), buffers.back().data()));
      }
  ASSERT_HZIO_OK(hzio_writer_write(w));
  hzio_io_stats stats{};
  ASSERT_HZIO_OK(hzio_writer_get_stats(w, &stats));
  EXPECT_EQ(stats.data_bytes, 2 * kDims.Product() * (8 + 24 + 8));  // every rank's boxes
  if (stats_out) *stats_out = stats;
  ASSERT_HZIO_OK(hzio_writer_free(w));
}

// Rank r reads cell r of a `grid` decomposition of velocity at timestep 1, full resolution:
// equal to the formula on every rank.
void ExpectVelocityOfCell(hzio_reader* r, const hzio::Point& grid) {
  const hzio::Box cell = hzio::GridCell(hzio::Box(hzio::Point(3), kDims), grid, Rank());
  const hzio::Point size = cell.Size();
  std::vector<uint8_t> out(static_cast<size_t>(size.Product() * 24));
  void* targets[1] = {out.data()};
  ASSERT_HZIO_OK(hzio_reader_read(r, "velocity", 1, HZIO_FULL_RESOLUTION, 1, cell.p1.v.data(), size.v.data(), targets));
  EXPECT_TRUE(AllRanks(hzio::FirstSyntheticMismatch(hzio::DType::Parse("float64[3]"), 1, 1, hzio::DenseGrid(cell),
                                                    out.data()) == -1));
}

class CApiMpi : public ::testing::TestWithParam<int> {};

// Written with one decomposition, read with another (rank r reads cell r+1 of a 1-D split in
// y), at every level, all fields in one call, in both read modes.
TEST_P(CApiMpi, AnotherDecompositionReadsTheFormulaAtEveryLevel) {
  ScratchDir dir;
  const std::string path = dir.File("ckpt/sim.idx");
  WriteCollectively(MPI_COMM_WORLD, path);
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open_mpi(MPI_COMM_WORLD, path.c_str(), GetParam(), &r));
  const hzio_desc* desc = nullptr;
  int maxh = 0;
  ASSERT_HZIO_OK(hzio_reader_get_desc(r, &desc));
  ASSERT_HZIO_OK(hzio_desc_get_maxh(desc, &maxh));
  // Blocks per file left to hzio: the collective writer cut the 128 blocks so each rank wrote files of its own.
  int64_t blocks_per_file = 0;
  ASSERT_HZIO_OK(hzio_desc_get_blocks_per_file(desc, &blocks_per_file));
  EXPECT_GE(128 / blocks_per_file, Ranks());
  const hzio::Box domain(hzio::Point(3), kDims);
  const hzio::Box cell = hzio::GridCell(domain, hzio::Point{1, Ranks(), 1}, (Rank() + 1) % Ranks());
  const hzio::Point size = cell.Size();
  const char* names[3] = {kFields[0].name, kFields[1].name, kFields[2].name};
  bool ok = true;
  for (int level = 0; level <= maxh; ++level) {
    int64_t origin[3], stride[3], count[3];
    ASSERT_HZIO_OK(hzio_reader_query_grid(r, cell.p1.v.data(), size.v.data(), level, origin, stride, count));
    const hzio::Grid g = GridOf(origin, stride, count);
    const int64_t t = level % 2;
    std::vector<std::vector<uint8_t>> out;
    std::vector<void*> targets;
    for (const FieldSpec& f : kFields) {
      out.emplace_back(static_cast<size_t>(hzio::DType::Parse(f.dtype).BytesFor(g.NumSamples())));
      targets.push_back(out.back().data());
    }
    // A rank whose box holds no sample of a coarse level still takes part (its box reads nothing).
    ASSERT_HZIO_OK(hzio_reader_read_fields(r, 3, names, t, level, 1, cell.p1.v.data(), size.v.data(), targets.data()));
    for (int f = 0; f < 3 && g.NumSamples() > 0; ++f) {
      const int64_t bad = hzio::FirstSyntheticMismatch(hzio::DType::Parse(kFields[f].dtype), f, t, g,
                                                            out[static_cast<size_t>(f)].data());
      EXPECT_EQ(bad, -1) << kFields[f].name << " level " << level << " rank " << Rank();
      ok = ok && bad == -1;
    }
  }
  EXPECT_TRUE(AllRanks(ok));
  hzio_io_stats stats{};
  ASSERT_HZIO_OK(hzio_reader_get_stats(r, &stats));
  EXPECT_EQ(stats.data_bytes, kDims.Product() * (8 + 24 + 8));  // the last read: full resolution
  ASSERT_HZIO_OK(hzio_reader_free(r));
}

INSTANTIATE_TEST_SUITE_P(Modes, CApiMpi, ::testing::Values(0, HZIO_ONE_PHASE),
                         [](const ::testing::TestParamInfo<int>& p) { return p.param == 0 ? "TwoPhase" : "OnePhase"; });

TEST(CApiMpiErrors, OneRanksBadInputFailsEveryRank) {
  ScratchDir dir;
  const std::string path = dir.File("sim.idx");
  WriteCollectively(MPI_COMM_WORLD, path);
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open_mpi_f(MPI_Comm_c2f(MPI_COMM_WORLD), path.c_str(), 0, &r));
  const int last = Ranks() - 1;
  std::vector<double> out(static_cast<size_t>(kDims.Product()));
  void* targets[1] = {out.data()};
  const int64_t offset[3] = {0, 0, 0}, count[3] = {kDims[0], kDims[1], kDims[2]}, away[3] = {0, 50, 0};
  // Only the last rank names an unknown field / asks outside the dataset / gives no buffer.
  ExpectCollectiveError(hzio_reader_read(r, Rank() == last ? "temperature" : "pressure", 0, HZIO_FULL_RESOLUTION, 1,
                                         offset, count, targets),
                        HZIO_ERR_NOT_FOUND, "unknown field 'temperature'");
  ExpectCollectiveError(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, Rank() == last ? away : offset,
                                         count, targets),
                        HZIO_ERR_OUT_OF_RANGE, "box 0:23,50:69,0:11 lies outside the dataset box");
  void* none[1] = {nullptr};
  ExpectCollectiveError(hzio_reader_read(r, "pressure", 0, HZIO_FULL_RESOLUTION, 1, offset, count,
                                         Rank() == last ? none : targets),
                        HZIO_ERR_INVALID_ARGUMENT, "out[0] is NULL");
  ExpectCollectiveError(hzio_reader_read(r, "pressure", 9, HZIO_FULL_RESOLUTION, 1, offset, count, targets),
                        HZIO_ERR_NOT_FOUND, "timestep 9 is not declared");
  // The reader still works after the failures.
  ASSERT_HZIO_OK(hzio_reader_read(r, "pressure", 1, HZIO_FULL_RESOLUTION, 1, offset, count, targets));
  EXPECT_EQ(hzio::FirstSyntheticMismatch(hzio::DType::Parse("float64"), 0, 1, hzio::DenseGrid(hzio::Box(hzio::Point(3), kDims)),
                                              reinterpret_cast<const uint8_t*>(out.data())),
            -1);
  ASSERT_HZIO_OK(hzio_reader_free(r));

  const std::string missing = dir.File("missing.idx");
  r = nullptr;
  ExpectCollectiveError(hzio_reader_open_mpi(MPI_COMM_WORLD, missing.c_str(), 0, &r), HZIO_ERR_NOT_FOUND, missing);
  EXPECT_EQ(r, nullptr);
  ExpectCollectiveError(hzio_reader_open_mpi(MPI_COMM_WORLD, path.c_str(), Rank() == last ? HZIO_SYNC : 0, &r),
                        HZIO_ERR_INVALID_ARGUMENT, "HZIO_SYNC cannot be given to a collective reader");
  EXPECT_EQ(r, nullptr);
}

TEST(CApiMpiErrors, WritersRefuseWhatTheyCannotDo) {
  ScratchDir dir;
  const std::string path = dir.File("sim.idx");
  WriteCollectively(MPI_COMM_WORLD, path);
  hzio_desc* desc = MakeDesc();
  hzio_writer* w = nullptr;
  ExpectCollectiveError(hzio_writer_create_mpi(MPI_COMM_WORLD, path.c_str(), desc, HZIO_UPDATE, &w),
                        HZIO_ERR_INVALID_ARGUMENT, "HZIO_UPDATE cannot be given to a collective writer");
  ASSERT_HZIO_OK(hzio_desc_set_layout(desc, "velocity", HZIO_LAYOUT_ROW_MAJOR));
  ExpectCollectiveError(hzio_writer_create_mpi(MPI_COMM_WORLD, path.c_str(), desc, 0, &w), HZIO_ERR_UNSUPPORTED,
                        "field 'velocity' asks for row-major blocks");
  EXPECT_EQ(w, nullptr);
  ASSERT_HZIO_OK(hzio_desc_set_layout(desc, nullptr, HZIO_LAYOUT_HZ));
  // The dataset exists: without HZIO_OVERWRITE the write fails everywhere, and the data stays.
  ASSERT_HZIO_OK(hzio_writer_create_mpi(MPI_COMM_WORLD, path.c_str(), desc, 0, &w));
  ExpectCollectiveError(hzio_writer_write(w), HZIO_ERR_INVALID_ARGUMENT, "already exists (pass overwrite");
  ASSERT_HZIO_OK(hzio_writer_free(w));
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open_mpi(MPI_COMM_WORLD, path.c_str(), 0, &r));
  ASSERT_HZIO_OK(hzio_reader_free(r));
  // With it, the dataset is replaced.
  WriteCollectively(MPI_COMM_WORLD, path, HZIO_OVERWRITE | HZIO_SYNC);
}

// HZIO_PIDX_COMPATIBLE: the header PIDX 0.9.3 reads (its dtype spelling, the file names it
// derives; PIDX itself reads such output in bench/mpi/pidx_check.sh), read back equal through the C
// reader; an overwrite with it replaces the dataset; a field PIDX cannot read is refused.
TEST(CApiMpiPidx, PidxCompatibleOutputReadsBack) {
  ScratchDir dir;
  const std::string path = dir.File("pidx/sim.idx");
  WriteCollectively(MPI_COMM_WORLD, path, HZIO_PIDX_COMPATIBLE);
  WriteCollectively(MPI_COMM_WORLD, path, HZIO_PIDX_COMPATIBLE | HZIO_OVERWRITE);
  if (Rank() == 0) {
    const std::string text = hzio::ReadWholeFile(path);
    EXPECT_NE(text.find("velocity 3*float64 "), std::string::npos) << text;
    EXPECT_NE(text.find("species 2*int32 "), std::string::npos) << text;
    EXPECT_NE(text.find("(filename_template)\n./sim/%0"), std::string::npos) << text;
  }
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open_mpi(MPI_COMM_WORLD, path.c_str(), 0, &r));
  ExpectVelocityOfCell(r, hzio::Point{1, 1, Ranks()});
  ASSERT_HZIO_OK(hzio_reader_free(r));

  hzio_desc* desc = MakeDesc();
  ASSERT_HZIO_OK(hzio_desc_add_field(desc, "species11", "float64[11]"));
  hzio_writer* w = nullptr;
  ExpectCollectiveError(hzio_writer_create_mpi(MPI_COMM_WORLD, dir.File("no/sim.idx").c_str(), desc,
                                               HZIO_PIDX_COMPATIBLE, &w),
                        HZIO_ERR_UNSUPPORTED, "not readable by PIDX 0.9.3: field 'species11' has dtype float64[11]");
  EXPECT_EQ(w, nullptr);
  ASSERT_HZIO_OK(hzio_desc_free(desc));
}

// Hints in an MPI_Info (hzio_mpi.h): "aggregators" takes effect (the stats say how many ranks wrote
// and read the files), a tiny memory budget (rounds) and two threads per rank still write and read
// the formula; an unknown key or a malformed value on one rank fails every rank, naming it.
TEST(CApiMpiHints, HintsInAnMpiInfoTakeEffect) {
  ScratchDir dir;
  const std::string path = dir.File("hints/sim.idx");
  MPI_Info info = MPI_INFO_NULL;
  MPI_Info_create(&info);
  MPI_Info_set(info, "memory_budget", "64k");
  MPI_Info_set(info, "aggregators", "1");
  MPI_Info_set(info, "threads", "2");
  hzio_io_stats written{};
  WriteCollectively(MPI_COMM_WORLD, path, 0, info, &written);
  EXPECT_EQ(written.aggregators, 1);
  hzio_reader* r = nullptr;
  ASSERT_HZIO_OK(hzio_reader_open_mpi_info(MPI_COMM_WORLD, path.c_str(), 0, info, &r));
  MPI_Info_free(&info);  // the handles keep what they read of it
  ExpectVelocityOfCell(r, hzio::Point{1, Ranks(), 1});
  hzio_io_stats read{};
  ASSERT_HZIO_OK(hzio_reader_get_stats(r, &read));
  EXPECT_EQ(read.aggregators, 1);
  ASSERT_HZIO_OK(hzio_reader_free(r));

  const int last = Ranks() - 1;
  MPI_Info wrong = MPI_INFO_NULL;
  MPI_Info_create(&wrong);
  if (Rank() == last) MPI_Info_set(wrong, "memory_budgt", "1g");
  hzio_desc* desc = MakeDesc();
  hzio_writer* w = nullptr;
  ExpectCollectiveError(hzio_writer_create_mpi_info(MPI_COMM_WORLD, dir.File("no/sim.idx").c_str(), desc, 0, wrong, &w),
                        HZIO_ERR_INVALID_ARGUMENT, "unknown hint 'memory_budgt'");
  EXPECT_EQ(w, nullptr);
  ASSERT_HZIO_OK(hzio_desc_free(desc));
  MPI_Info_free(&wrong);
  for (const auto& [key, value, says] : {std::tuple{"threads", "300", "hint threads 300 is outside 0..256"},
                                         std::tuple{"memory_budget", "lots", "hint memory_budget=lots"},
                                         std::tuple{"aggregators", "-2", "hint aggregators=-2"}}) {
    MPI_Info_create(&wrong);
    if (Rank() == 0) MPI_Info_set(wrong, key, value);
    r = nullptr;
    ExpectCollectiveError(hzio_reader_open_mpi_info_f(MPI_Comm_c2f(MPI_COMM_WORLD), path.c_str(), 0,
                                                      MPI_Info_c2f(wrong), &r),
                          HZIO_ERR_INVALID_ARGUMENT, says);
    EXPECT_EQ(r, nullptr);
    MPI_Info_free(&wrong);
  }
}

// A writer and a reader on a sub-communicator: the other ranks take no part.
TEST(CApiMpiComm, SubCommunicator) {
  ScratchDir dir;
  const std::string path = dir.File("sub.idx");
  const int n = (Ranks() + 1) / 2;
  MPI_Comm sub = FirstRanks(MPI_COMM_WORLD, n);
  bool ok = true;
  if (sub != MPI_COMM_NULL) {
    WriteCollectively(sub, path);
    hzio_reader* r = nullptr;
    ASSERT_HZIO_OK(hzio_reader_open_mpi(sub, path.c_str(), 0, &r));
    std::vector<uint8_t> out(static_cast<size_t>(kDims.Product() * 24));
    const int64_t offset[3] = {0, 0, 0}, count[3] = {kDims[0], kDims[1], kDims[2]};
    ASSERT_HZIO_OK(hzio_reader_read_array(r, "velocity", 1, HZIO_FULL_RESOLUTION, offset, count, 3 * kDims.Product(),
                                          8, out.data()));
    ok = hzio::FirstSyntheticMismatch(hzio::DType::Parse("float64[3]"), 1, 1,
                                           hzio::DenseGrid(hzio::Box(hzio::Point(3), kDims)), out.data()) == -1;
    ASSERT_HZIO_OK(hzio_reader_free(r));
    MPI_Comm_free(&sub);
  }
  EXPECT_TRUE(AllRanks(ok));
}

}  // namespace
