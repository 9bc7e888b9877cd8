// PIDX-readable parallel output (WriteOptions::pidx_compatible, format/pidx_output.h, issue 18):
// hzio reads it equal to the formula at every level, its files sit where PIDX 0.9.3 derives them
// from the .idx name, an overwrite leaves no other generation behind, and a dataset PIDX could not
// read is refused on every rank before anything is written. (PIDX itself reads it in
// bench/mpi/hzio_pidx_read_check; OpenVisus in openvisus_reads_parallel_write.py.)
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <string>

#include "hzio/access/dataset.h"
#include "hzio/format/pidx_output.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/storage/file.h"
#include "hzio/util/decomposition.h"
#include "mpi_test_support.h"

namespace hzio::mpi {
namespace {

namespace fs = std::filesystem;
using testing::ExpectNoProblems;
using testing::ScratchDir;
using testing::SyntheticSpec;

using testing::Rank;
using testing::Ranks;

WriteOptions Pidx(bool overwrite = false) {
  WriteOptions o;
  o.pidx_compatible = true;
  o.overwrite = overwrite;
  return o;
}

SyntheticSpec S3dLike() {
  SyntheticSpec spec;
  spec.dims = Point{30, 20, 17};  // not powers of two: some blocks hold no sample
  spec.fields = "p:float64,v:float64[3],t:float32,f:int32";
  spec.timesteps = 2;
  spec.bits_per_block = 8;
  spec.blocks_per_file = 4;
  return spec;
}

TEST(PidxCompatibleWrite, ReadsBackEqualAndSitsWherePidxLooks) {
  ScratchDir dir;
  const std::string idx = dir.File("pidx/visus.idx");
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, S3dLike(), DefaultGrid(Ranks(), 3), 2, Pidx());
  ExpectNoProblems(testing::VerifySerialAllLevels(MPI_COMM_WORLD, idx));
  if (Rank() != 0) return;
  const std::string text = ReadWholeFile(idx);
  EXPECT_NE(text.find("+ v 3*float64 "), std::string::npos) << text;
  EXPECT_NE(text.find("p 1*float64 "), std::string::npos) << text;
  const IdxHeader h = OpenDataset(idx)->header();
  EXPECT_EQ(h.filename_template, PidxFilenameTemplate("visus", h.maxh(), h.bits_per_block));
  // 2^(15-8) blocks, 4 per file: PIDX names file k by block 4k in two hex digits (files whose
  // blocks hold no sample are not written).
  EXPECT_EQ(h.filename_template, "./visus/%02x.bin");
  EXPECT_TRUE(fs::is_regular_file(dir.File("pidx/visus/time_00/00.bin")));
  EXPECT_TRUE(fs::is_regular_file(dir.File("pidx/visus/time_01/74.bin")));
}

TEST(PidxCompatibleWrite, OverwriteRemovesTheOldDatasetAndLeavesNoGeneration) {
  ScratchDir dir;
  const std::string idx = dir.File("again/visus.idx");
  SyntheticSpec old_spec;
  old_spec.dims = Point{16, 8, 8};
  old_spec.fields = "c:uint8";
  old_spec.timesteps = 3;
  testing::WriteSynthetic(MPI_COMM_WORLD, idx, old_spec, DefaultGrid(Ranks(), 3), 1, {});
  std::string message;
  try {
    testing::WriteSynthetic(MPI_COMM_WORLD, idx, S3dLike(), DefaultGrid(Ranks(), 3), 1, Pidx());
  } catch (const Error& e) {
    message = e.what();
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << message;
  }
  EXPECT_NE(message.find("already exists"), std::string::npos) << message;
  for (int round = 0; round < 2; ++round)
    testing::WriteSynthetic(MPI_COMM_WORLD, idx, S3dLike(), DefaultGrid(Ranks(), 3), 1, Pidx(true));
  ExpectNoProblems(testing::VerifySerialAllLevels(MPI_COMM_WORLD, idx));
  MPI_Barrier(MPI_COMM_WORLD);
  if (Rank() != 0) return;
  EXPECT_FALSE(fs::exists(dir.File("again/visus.g2")));
  EXPECT_FALSE(fs::exists(dir.File("again/visus/time_02")));  // the old third timestep
  int64_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.File("again/visus"))) files += e.is_regular_file();
  EXPECT_EQ(files, 2 * 24);  // 2 timesteps x the 24 of 32 files (4 blocks each) that hold samples
}

TEST(PidxCompatibleWrite, DatasetsPidxCannotReadAreRefusedOnEveryRank) {
  ScratchDir dir;
  const std::string idx = dir.File("refused/visus.idx");
  const auto refusal = [&](const std::string& fields, const std::string& compression) {
    std::string message;
    try {
      ParallelWriter writer(MPI_COMM_WORLD, idx, MakeHeader(Point{16, 16, 16}, ParseFieldList(fields), 1, 0, 0, compression, idx, Ranks()),
                            Pidx());
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << e.what();
      message = e.what();
    }
    EXPECT_TRUE(testing::SameOnAllRanks(message));
    EXPECT_NE(message.find(idx), std::string::npos) << message;
    return message;
  };
  EXPECT_NE(refusal("species:float64[11]", "raw").find("dtype float64[11]"), std::string::npos);
  EXPECT_NE(refusal("p:float64", "zip").find("compressed (zip)"), std::string::npos);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(fs::exists(dir.File("refused")));
}

}  // namespace
}  // namespace hzio::mpi
