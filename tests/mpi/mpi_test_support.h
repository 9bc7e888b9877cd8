// MPI-specific helpers of the hzio::mpi tests (the rest is tests/support/): a per-test scratch
// directory agreed by all ranks, reductions of local verdicts, synthetic writes through the
// library, and serial verification.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hzio/format/idx_header.h"
#include "hzio/mpi/collective.h"
#include "hzio/mpi/parallel_writer.h"

namespace hzio::mpi::testing {

/// A directory created by rank 0 and removed at destruction (collective on `comm`).
class ScratchDir {
 public:
  explicit ScratchDir(MPI_Comm comm = MPI_COMM_WORLD);
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  MPI_Comm comm_;
  std::string path_;
};

/// The size of MPI_COMM_WORLD and this process's rank in it.
inline int Ranks() { return CommSize(MPI_COMM_WORLD); }
inline int Rank() { return CommRank(MPI_COMM_WORLD); }

/// True on every rank iff `ok` holds on every rank of `comm`.
bool AllRanks(bool ok, MPI_Comm comm = MPI_COMM_WORLD);

/// True on every rank iff every rank of `comm` holds the same `text` as rank 0 (collective error
/// messages).
bool SameOnAllRanks(const std::string& text, MPI_Comm comm = MPI_COMM_WORLD);

/// A synthetic dataset description (design.md §4 data).
struct SyntheticSpec {
  Point dims;
  std::string fields = "p:float64,v:float32[3],c:uint8";
  int64_t timesteps = 1;
  int bits_per_block = 0;
  int64_t blocks_per_file = 0;
  std::string compression = "raw";
};

/// Collective: flushes every file under `dir` and drops it from the page cache (rank 0 does it for
/// the node); true on every rank if nothing of them stayed cached (tmpfs keeps its pages).
bool EvictFromPageCache(MPI_Comm comm, const std::string& dir);

/// Writes the synthetic data with `comm` (grid cells over the ranks, `pieces_per_rank` pieces
/// each) through ParallelWriter. Collective on `comm`; throws what Write() throws.
IoStats WriteSynthetic(MPI_Comm comm, const std::string& idx_path, const SyntheticSpec& spec, const Point& grid,
                       int64_t pieces_per_rank, const WriteOptions& options);

/// Reads every field and timestep at every level with the serial reader (hzio::OpenDataset),
/// levels dealt over the ranks of `comm`, and compares with the formula. Returns the list of
/// mismatches (empty when equal); collective.
std::vector<std::string> VerifySerialAllLevels(MPI_Comm comm, const std::string& idx_path);

/// One test failure per problem of a list (VerifySerialAllLevels, CompareBlockFiles).
void ExpectNoProblems(const std::vector<std::string>& problems);

/// Byte-compares the block files (relative paths and contents) of the data directories that
/// `<dataset_a>/visus.idx` and `<dataset_b>/visus.idx` name; rank 0 only.
std::vector<std::string> CompareBlockFiles(const std::string& dataset_a, const std::string& dataset_b);

/// A communicator of the first `n` ranks of `comm` (MPI_COMM_NULL on the others).
MPI_Comm FirstRanks(MPI_Comm comm, int n);

}  // namespace hzio::mpi::testing
