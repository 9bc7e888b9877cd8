/// The I/O step of the parallel writer: each aggregator encodes its blocks (raw/zip/lz4) into its
/// portions of the block files of a timestep and writes them (idx-format.md §4.5). Payloads are
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
#include <vector>

#include "hzio/storage/block_file_write.h"
#include "hzio/format/block_files.h"
#include "hzio/hz/block_layout.h"
#include "hzio/mpi/file_aggregation.h"

namespace hzio::mpi {

/// Collective over `comm`: every rank calls it; aggregators (`agg` >= 0) encode their
/// FileAggregation buffers and write, with `sync` each file reaches the disk before the agreement.
/// `buffers[a]` is aggregator a's buffer where this rank can read it directly (its own always; any
/// on its node with a node-shared window), else null: the raw parts of a shared file held on one
/// node are then written by one of its ranks. Returns the bytes of this rank's own parts. Errors
/// are agreed.
int64_t WriteTimestepFiles(MPI_Comm comm, const IdxHeader& header, const BlockLayout& layout, const BlockFiles& files,
                           const FileAggregation& plan, int64_t agg, const std::vector<const uint8_t*>& buffers,
                           int64_t time, bool sync, DirectIo direct);

}  // namespace hzio::mpi
