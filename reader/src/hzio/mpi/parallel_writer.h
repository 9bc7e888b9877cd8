/// The collective IDX writer of hzio::mpi (issue 4): every rank registers any number of boxes per
/// field and timestep, then Write() runs the three phases — restructure onto power-of-two cells,
/// HZ-encode each cell into per-level buffers, aggregate with MPI one-sided puts into aggregator
/// buffers that map to contiguous ranges of block files — and the aggregators encode and write
/// their files or file parts (header + payloads, idx-format.md §4.5, A.3) with a few large writes
/// (a shared file of a raw dataset by one rank per node, file_portions.h). Durable direct writes of
/// whole raw files begin while the later fields are still being encoded (write_rounds.h).
///
/// Output is deterministic: blocks are stored in hz order, payloads laid out slot by slot (fields inside a slot),
/// so raw-codec files are byte-identical for any rank count and decomposition. A write is a
/// transaction (access/dataset_transaction.h) run by rank 0: it takes the dataset's lock, the
/// ranks write a new dataset in place or, over an existing one, a new generation of its data
/// directory (the old dataset stays readable meanwhile), and after all ranks agree the files are
/// written rank 0 renames the `.idx` into place and removes the superseded generation. Any
/// failure makes Write() throw the same hzio::Error on every rank and leaves the old state.
///
/// Memory is bounded by WriteOptions::memory_budget: when the aggregators' buffers for a timestep
/// would exceed it, the timestep is written in rounds over ranges of its files that hold samples
/// of every rank's box where they can (FileAggregation::Rounds): each round encodes the cells' runs
/// that fall in its files, aggregates, writes and reuses the buffers. The files are the same bytes
/// whatever the rounds.
///
/// Write() is one function per phase: AgreeOnInput (local checks, one agreement), the plans
/// (CellPlan, PlanWriteRounds: write_rounds.h), OpenTransaction (rank 0), then per timestep
/// RestructureTimestep and, per round, RoundPipeline::Run (fill, encode, exchange, write), then
/// RoundPipeline::Finish (every write on disk and agreed) and the commit.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/format/idx_header.h"
#include "hzio/mpi/aggregation_window.h"
#include "hzio/hz/imposed_grid.h"
#include "hzio/mpi/restructure.h"
#include "hzio/mpi/stats.h"

namespace hzio {
class BlockFiles;
class DatasetTransaction;
}  // namespace hzio

namespace hzio::mpi {

struct CellPlan;

/// Whether a write of several rounds writes round r's files on an I/O thread while round r+1 is
/// encoded (write_rounds.h).
enum class IoOverlap {
  kAuto,    // where it pays: durable writes (the I/O thread waits on the disk), or when every rank has
            // more than one CPU of its own. A page-cache write is a memory copy: beside the encoding on a
            // rank's only core it takes that core (512^3 float32, 2 ranks on 2 cores: 0.35 s against
            // 0.30 s one round after the other, bench/mpi/RESULTS.md)
  kAlways,  // whenever there are rounds and the budget holds two halves
  kNever,   // one round after the other
};

struct WriteOptions {
  RestructureSpec restructure;
  int64_t aggregators = 0;  // 0 = one per rank; never more than ranks or files per timestep
  bool overwrite = false;   // replace a dataset already at the path (it stays readable until the commit)
  bool sync = false;        // fsync every block file and directory before the .idx is written, and the
                            // .idx: a power cut then never leaves an .idx whose data was lost (checkpoints)
  bool direct_io = true;    // with sync, block files a whole aggregator writes go around the page cache
                            // (O_DIRECT, buffered where the file system refuses it; storage/block_file_write.h)
  bool wait = false;        // wait while another writer holds the dataset's lock (else kLocked)
  /// Output PIDX 0.9.3 reads too (format/pidx_output.h): the file names PIDX derives and its dtype
  /// spelling; kUnsupported for datasets PIDX cannot read (compressed, 11-component fields, ...).
  /// An existing dataset is removed before the write instead of staying readable until the commit.
  bool pidx_compatible = false;
  std::function<void(const std::string&)> notify;  // rank 0's notes (waiting for the lock, ...)
  WindowKind windows = WindowKind::kNodeShared;  // aggregator memory (aggregation_window.h)
  int64_t memory_budget = 0;  // bytes of aggregator buffer per rank (the minimum over ranks counts);
                              // 0 = AggregationWindow::DefaultBudget (256 MiB). Larger timesteps go in rounds.
  IoOverlap overlap_io = IoOverlap::kAuto;  // with more than one round: write round r's files on an I/O
                                           // thread while round r+1 is encoded (the budget then holds
                                           // two half-size buffers)
  int encoding_threads = 0;   // threads that HZ-encode this rank's cells where it stores into the aggregators'
                              // memory itself (no puts): 0 = the CPUs this rank has to itself (node_share.h: 1
                              // where each rank is bound to a core, as Open MPI binds up to 2 ranks by default);
                              // at most kMaxThreadsPerRank; this rank only
};

class ParallelWriter {
 public:
  /// `header` must be the same on every rank (checked in Write()). It is validated here; fields
  /// are written in hz layout with each field's `compression`.
  ParallelWriter(MPI_Comm comm, std::string idx_path, IdxHeader header, WriteOptions options = {});

  const IdxHeader& header() const { return header_; }

  /// Registers a box of field `field` at timestep `time`: row-major samples over `box` (x fastest,
  /// components contiguous). No copy: `data` must stay valid until Write() returns. Local.
  void Add(int field, int64_t time, const Box& box, const uint8_t* data);

  /// Collective: writes every registered box, then the `.idx`. Throws the same Error on every rank.
  IoStats Write();

 private:
  // The phases of Write() (parallel_writer.cpp; the rounds in write_rounds.h). Collective:
  struct Agreement;
  Agreement AgreeOnInput() const;  // local checks, then one agreement (errors thrown on every rank)
  // Rank 0 opens the transaction (lock, new dataset or generation); every rank learns where to write.
  BlockFiles OpenTransaction(std::optional<DatasetTransaction>& txn) const;
  std::vector<RegularBox> RestructureTimestep(int64_t time, const CellPlan& cells, IoStats& stats) const;
  // The (time, field) parts any rank registered, sorted (the union over ranks).
  std::vector<std::pair<int64_t, int>> RegisteredParts() const;

  struct Registered {
    int64_t time;
    Piece piece;
  };

  MPI_Comm comm_;
  std::string idx_path_;
  IdxHeader header_;
  WriteOptions options_;
  std::vector<Registered> registered_;
};

/// The header the driver and tests use: box [0,dims), guessed bitmask, the given fields (hz
/// layout, `compression`), timesteps 0..timesteps-1 (time template `time_%02d/` when more than one).
/// `blocks_per_file` 0 is the default for a write by `ranks` ranks (SplitFilesAcrossRanks).
IdxHeader MakeHeader(const Point& dims, const std::vector<Field>& fields, int64_t timesteps, int bits_per_block,
                     int64_t blocks_per_file, const std::string& compression, const std::string& idx_path, int ranks);

/// For a `validated` header whose (blocksperfile) the caller left to its default: the files cut so
/// that each of `ranks` aggregators writes whole files of its own (FileAggregation::
/// DefaultBlocksPerFile; a 64 MiB timestep at 2 ranks is then two files written side by side,
/// not one that a single rank writes while the other waits), and the header validated again for
/// `idx_path`. An ARCO header (a block per file) stays as it is.
void SplitFilesAcrossRanks(IdxHeader& validated, int ranks, const std::string& idx_path);

/// Parses "name:dtype,name:dtype[3],..." (design.md §3 `--fields`).
std::vector<Field> ParseFieldList(const std::string& text);

}  // namespace hzio::mpi
