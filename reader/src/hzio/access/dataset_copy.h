/// `hzio copy`: a dataset re-laid out into a new one (idx-format.md §4: classic block files or ARCO
/// one-file-per-block §4.12, another compression §5, layout, bitsperblock, blocksperfile), as
/// OpenVisus's copyDataset/compressDataset do. The source is anything OpenDataset opens (local,
/// mod_visus URL, remote stores); its samples stream through in pieces of the domain split in hz
/// order (the bitmask's coarsest bits), so that the destination's blocks complete piece by piece:
/// memory is the piece plus the blocks still waiting for samples, which are those of the levels
/// coarser than a piece (about block bytes x dataset / piece; not yet constant for huge datasets). The
/// destination is written in one transaction (DatasetWriter: data first, the `.idx` last): a crash
/// leaves no destination, never a half-written one that looks complete.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"

namespace hzio {

struct CopyOptions {
  int64_t arco = 0;                          // > 0: ARCO blocks of at most this many bytes; 0: classic
  std::optional<std::string> compression;    // every copied field's ("" = raw); default: each its own
  std::optional<bool> hz_layout;             // default: each field its own
  int bits_per_block = 0;                    // 0: the source's (classic), the default guess otherwise
  std::optional<int64_t> blocks_per_file;    // default: the source's (classic), the guess otherwise
  std::vector<std::string> fields;           // empty: every field
  std::optional<std::pair<int64_t, int64_t>> times;  // inclusive; default: every declared timestep
  int64_t slab_bytes = int64_t{64} << 20;    // source samples read per step (a piece)
  WriterOptions writer;                      // threads, sync, wait, notify
  /// (bytes copied, bytes to copy), after each slab.
  std::function<void(int64_t, int64_t)> progress;
};

/// The destination header: the source's geometry and fields (selected, with the storage options
/// applied), hzio's own bookkeeping keys dropped. Throws kNotFound for an unknown field or a
/// timestep range the source does not declare.
IdxHeader CopyHeader(const IdxHeader& source, const std::string& destination, const CopyOptions& options);

/// Copies `source` into a new dataset at `destination` (an existing one is refused: kInvalidArgument).
/// Returns the bytes of samples copied.
int64_t CopyDataset(Dataset& source, const std::string& destination, const CopyOptions& options);

/// The samples of `source` streamed into `writer` (made for a CopyHeader of it), then
/// writer.Finish(): CopyDataset's pipeline for writers of other destinations (uploads,
/// remote/dataset_upload.h). Returns the bytes of samples copied.
int64_t CopyDatasetInto(Dataset& source, DatasetWriter& writer, const CopyOptions& options);

}  // namespace hzio
