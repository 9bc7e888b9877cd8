/// The I/O step of the parallel writer: each aggregator encodes its blocks (raw/zip/lz4) into its
/// portions of the block files of a timestep and writes them (idx-format.md §4.5). Whole files of a
/// raw dataset may be prepared before their payloads are encoded, and written field by field as the
/// encoding makes them final (TimestepWrites::Start, Release: release_schedule.h). Payloads are
/// laid out slot by slot, fields inside a slot, so an aggregator's portion of a file is one
/// contiguous byte range and the file bytes do not depend on the rank or aggregator count. A file
/// owned by one aggregator is written with one vectored write, header included. A shared file of a
/// raw dataset has every byte's place fixed by the geometry: one rank per node writes the parts of
/// that node's sharers. The sharers of a compressed file write their table entries and payload
/// ranges into it concurrently, at the offsets that the sizes of the sharers before them give (one
/// Allgather of four numbers per rank: linear, not quadratic); the owner of slot 0 writes the
/// table header, the owner of the last slot the zero entries past the last block and the final
/// size. No sharer waits for another.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "hzio/storage/block_file_write.h"
#include "hzio/storage/staged_file_write.h"
#include "hzio/format/block_files.h"
#include "hzio/hz/block_layout.h"
#include "hzio/mpi/file_aggregation.h"
#include "hzio/mpi/release_schedule.h"

namespace hzio::mpi {

/// The file writes of one round, prepared by PrepareTimestepFiles: what each write puts where, and
/// the tables and compressed payloads it owns. Run() is local POSIX I/O only (no MPI), so it may
/// run on another thread while the caller encodes the next round (parallel_writer.cpp); the
/// aggregators' buffers it reads from must stay untouched until it returns. The whole files of a
/// raw dataset may also be started before their payloads are encoded: Start() creates them, and
/// Release(f) writes what fields 0..f make final (storage/staged_file_write.h).
class TimestepWrites {
 public:
  TimestepWrites() = default;
  TimestepWrites(TimestepWrites&&) = default;
  ~TimestepWrites();
  /// Creates the whole files (no MPI). A failure is kept for Run.
  void Start();
  /// The payloads of steps 0..`step` of the release schedule are in the buffers, final: their bytes
  /// in every started file start going out (direct writes only). A failure is kept for Run.
  void Release(int step);
  /// Writes every file, or what is left of the started ones (with `sync` each reaches the disk
  /// before Run returns); rethrows a failure of the preparation, Start or Release first. Throws kIo
  /// naming the file.
  void Run();
  /// The bytes of this rank's own parts (whoever writes them).
  int64_t bytes() const { return bytes_; }
  /// After Run: the bytes its direct writes took straight from the buffers (no staging copy).
  int64_t zero_copy_bytes() const { return zero_copy_bytes_; }

  /// Building (PrepareTimestepFiles): a whole-file write (each piece final after its step of the
  /// release schedule: its stage; the table's is -1), a write of placed parts (sorted by offset)
  /// into a shared file, and bytes the pieces may point into (kept until destruction).
  void AddWhole(std::string path, std::vector<StagedSpan> pieces);
  void AddPlaced(std::string path, std::vector<PlacedSpan> pieces, int64_t final_size);
  const uint8_t* Keep(std::vector<uint8_t> bytes);
  void AddBytes(int64_t n) { bytes_ += n; }
  void SetError(std::exception_ptr error) { error_ = std::move(error); }
  void SetMode(bool sync, DirectIo direct, WriteSourceMap* sources) {
    sync_ = sync;
    direct_ = direct;
    sources_ = sources;
  }

 private:
  struct FileWrite {
    std::string path;
    bool whole = false;  // a StagedFileWrite of whole_pieces, else WriteIntoFile(placed, final_size)
    std::vector<StagedSpan> whole_pieces;
    std::vector<PlacedSpan> placed;
    int64_t final_size = -1;
    std::unique_ptr<StagedFileWrite> started;  // by Start()
  };
  std::vector<FileWrite> writes_;
  std::vector<std::vector<uint8_t>> owned_;  // tables and encoded payloads the pieces point into
  std::exception_ptr error_;                 // of the preparation (e.g. a codec failure), Start or Release
  int64_t bytes_ = 0, zero_copy_bytes_ = 0;
  bool sync_ = false;
  DirectIo direct_ = DirectIo::kAuto;
  WriteSourceMap* sources_ = nullptr;  // the window's (its shared pages mapped once), or null
};

/// The bytes of the block table at the start of each of `plan`'s files (an entry per block and
/// field); a whole raw file holds the aggregator's buffer right after it.
int64_t FileTableBytes(const IdxHeader& header, const FileAggregation& plan);

/// Collective over `comm`: every rank calls it; aggregators (`agg` >= 0) encode their
/// FileAggregation buffers into their portions of the round's files and place them, each payload
/// of a whole file final after its step of `schedule` (shared
/// compressed files: one Allgather of the portion sizes). Nothing is written yet: the caller runs
/// the result and agrees on its errors. `buffers[a]` is aggregator a's buffer where this rank can
/// read it directly (its own always; any on its node with a node-shared window), else null: the
/// raw parts of a shared file held on one node are then written by one of its ranks. Local errors
/// are kept in the result (Run rethrows them), so every rank takes part in the collective steps.
/// `sources`: the buffers' shared memory (AggregationWindow::write_sources), for buffered writes.
TimestepWrites PrepareTimestepFiles(MPI_Comm comm, const IdxHeader& header, const BlockLayout& layout,
                                    const BlockFiles& files, const FileAggregation& plan,
                                    const ReleaseSchedule& schedule, int64_t agg,
                                    const std::vector<const uint8_t*>& buffers, int64_t time, bool sync,
                                    DirectIo direct, WriteSourceMap* sources);

}  // namespace hzio::mpi
