/// Reading decoded blocks for the parallel reader (idx-format.md §4.3–4.7): the aggregators (two-
/// phase) and every rank (one-phase) read a sorted list of blocks of one field and timestep,
/// file by file, with one table read and large payload reads (pieces of a few MiB, each placed before
/// the next is read), and decode each block
/// into caller memory in row-major order over its block grid (hz-ordered blocks are permuted),
/// so later copies into result boxes are planned per axis. Also the per-axis copy between grids.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hzio/access/classic_block_source.h"
#include "hzio/hz/block_layout.h"
#include "hzio/access/aggregation_plan.h"

namespace hzio {
class ThreadPool;  // util/thread_pool.h
}

namespace hzio::mpi {

struct BlockReadStats {
  int64_t file_bytes = 0;     // bytes read from files (tables + payloads)
  double layout_seconds = 0;  // wall time spent placing units (permuting hz-ordered ones, and the sinks' work)
  int64_t direct_bytes = 0;   // of file_bytes, those read past the page cache (O_DIRECT)
};

/// One field a ReadBlocks call reads, and where each of its blocks goes (out[i] for blocks[i]).
struct FieldTarget {
  int field;
  std::vector<uint8_t*> out;
};

/// Takes each unit as soon as it is decoded: (target, i, samples) for block i of targets[target],
/// its samples row-major over the unit's grid (all of them: use no `rows` with a sink). The
/// samples live only until the call returns.
using BlockSink = std::function<void(size_t target, size_t index, const uint8_t* samples)>;

/// Offered each whole hz-ordered unit before it is permuted: (target, i, samples in hz order, the
/// unit's level). True when it placed the unit itself (the sink is then not called for it).
using HzSink = std::function<bool(size_t target, size_t index, const uint8_t* hz_samples, int level)>;

/// The size of the pieces a file's bytes are read in (one unit at least), each placed while the
/// next is read, by a rank of a node where `node_ranks` ranks read at once. The node's direct reads
/// keep about 4 MiB in flight together: 4 MiB pieces for a rank alone, one huge page (2 MiB, the
/// least) for two ranks and more. A cold restart read of 128^3 x 16 float64 per rank, hzio / file-
/// per-process: 1 rank 0.84-0.86 in 2 MiB pieces, 1.02-1.10 in 4, 0.95-0.97 in 8; 2 ranks 1.09-1.12
/// in 2 MiB, 0.90-0.93 in 4, 0.84-0.91 in 8 (bench/mpi/RESULTS.md, "pieces of one huge page").
uint64_t PieceBytesFor(int node_ranks);

/// How ReadBlocks reads and where its units go (see there).
struct ReadBlocksOptions {
  const std::vector<Span>* rows = nullptr;  // per block, the row-major samples wanted (default: all)
  DirectReads direct = DirectReads::kNever;  // payload pieces past the page cache (decided per file)
  const BlockSink* sink = nullptr;          // units handed over one by one instead of stored at `out`
  const HzSink* hz_sink = nullptr;          // with a sink: offered whole hz-ordered units first
  bool hz_order = false;                    // units stored at `out` in hz order, not permuted (see ReadBlocks)
  ThreadPool* placers = nullptr;            // helpers that place units with the caller (see ReadBlocks)
  uint64_t piece_bytes = PieceBytesFor(1);  // a file's bytes are read in pieces of about this size
};

/// Reads `blocks` (ascending ids in `units`) of every field of `targets` at `time` from `source`'s
/// block files (its cached tables, its reads and its checks: a file shorter than its table is
/// kChanged or kCorrupt as for every reader), each file in one pass in file order over all the
/// fields' payloads. `units` is the file's own block layout or a finer one (fewer bits per block):
/// its blocks are then aligned hz sub-ranges of the file's blocks, each a box of one level's
/// lattice, and of a raw hz block only the sub-ranges asked for are read. Block i of a field is
/// decoded into its target's out[i] (room for its samples, uninitialised) — or, with `rows`, only
/// its row-major samples [rows[i].begin, rows[i].end), stored from out[i] on (an aggregator's range
/// cuts its first and last block); absent blocks (missing file, empty entry) are filled with the
/// field's default value (idx-format.md §4.9). With `missing_files_are_errors`, a file that should
/// hold one of the blocks but does not exist is an error (kNotFound naming the file); a corrupt
/// table or payload is always kCorrupt naming it. Only samples of levels 0..max_level are needed:
/// of block 0 (levels 0..its bits) just those are read (raw) and placed; the rest of its grid is
/// left as it was. With `direct` (kAlways, or kWhenUncached for a file whose wanted bytes are
/// mostly not in the page cache: a sample of them asked with ReadFile::CachedBytes), the pieces of
/// a file are read past the page cache where the file system allows it (O_DIRECT into huge-page
/// staging, ClassicBlockSource::ReadRangeUncached; buffered elsewhere), the next pieces' reads
/// queued while one is placed (PieceReadAhead), across the end of a file: the next file's table is
/// read and its absent units filled when the file before it reads its first piece direct.
/// With a `sink`, the targets' `out` are not used: each unit is decoded into a buffer of one unit
/// and handed to the sink, so a caller can place it while it is in the caches; with an `hz_sink`
/// too, each whole hz-ordered unit is first offered to it in hz order (straight from the file bytes
/// when raw), and only the units it declines are permuted and handed to the sink.
/// With `hz_order` (no rows, no sink), each unit is stored at out[i] in hz order as the file keeps
/// it (unit 0 of a coarser query: its first 2^max_level samples), the permutation left to whoever
/// places it (HzUnitPlacer, hz_unit_placer.h); a row-major payload is put into hz order.
/// With `placers` (not with hz_order), the units of a piece read in one go that are all raw hz (no
/// decoded block shared between them) are placed by the pool's threads and the caller's at once:
/// the sinks must then be safe to call from several threads, each with its own samples.
/// No MPI calls (it runs on the reader's I/O thread when rounds overlap).
BlockReadStats ReadBlocks(ClassicBlockSource& source, const BlockLayout& units, const std::vector<FieldTarget>& targets,
                          int64_t time, const std::vector<uint64_t>& blocks, bool missing_files_are_errors,
                          int max_level, const ReadBlocksOptions& options = {});

/// A sample of the bytes of the block files that hold `blocks` (ids in `units`) at `time` (64
/// windows of 64 KiB spread over each file, all of a file up to 4 MiB), and how many of them are in
/// the page cache now (ReadFile::CachedBytes: nothing is read, not even a table). Missing files
/// count for nothing. A hint for choosing how to read; no MPI calls.
struct CachedShare {
  int64_t bytes = 0, cached = 0;
};
CachedShare CachedFileBytes(const ClassicBlockSource& source, const BlockLayout& units, int64_t time,
                            const std::vector<uint64_t>& blocks);

/// Copies the samples a plan selects from `src` (row-major over `src_count`, the plan's src side)
/// to `dst` (row-major over `dst_count`, the plan's dst side), `sample_bytes` each. With `stream`,
/// contiguous rows are written with streaming stores (util/stream_copy.h: call StreamFence() after).
void CopyPlanned(const uint8_t* src, const Point& src_count, uint8_t* dst, const Point& dst_count,
                 const AxisCopy (&plan)[kMaxDims], int dims, int64_t sample_bytes, bool stream = false);

/// The samples of unit u of `units` at levels 0..max_level, hz-ordered at `hz` (unit 0 of a coarser
/// query: only its first 2^max_level), row-major over the unit's grid: rows [want.begin, want.end)
/// of it into `out` (the others untouched for unit 0 of a coarser query: its grid is sparse then).
void HzUnitToRowMajor(const BlockLayout& units, uint64_t u, int max_level, const uint8_t* hz, int64_t sample_bytes,
                      Span want, uint8_t* out);

/// Samples of a unit of a query of levels 0..max_level (all of its samples, or the first
/// 2^max_level of unit 0, which holds levels 0..its bits).
int64_t UnitSamplesNeeded(const BlockLayout& units, uint64_t u, int max_level);

/// Whether block b holds any sample inside `box`: blocks wholly outside the dataset box are never
/// stored (idx-format.md §4.6), so neither the writer nor the reader touches them.
bool BlockTouchesBox(const BlockLayout& layout, uint64_t block, const Box& box);

/// The blocks of `box` at levels 0..level that hold samples of the dataset box, ascending.
std::vector<uint64_t> BoxBlocks(const IdxHeader& header, const BlockLayout& layout, const Box& box, int level);

}  // namespace hzio::mpi
