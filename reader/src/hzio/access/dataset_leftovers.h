/// What a dataset's directories hold beyond its committed version, and reclaiming it (`hzio
/// verify` lists it, `hzio verify --repair` / `hzio gc` removes it): temporary files of killed
/// writers (`*.tmp.<pid>`, `*.hzio-*`) and the lock file they held (storage/lock_file.h), generation directories the header does not name (staged
/// by a killed writer, or superseded and not yet removed; access/dataset_paths.h), files in the
/// data directory that no declared block maps to, and bytes inside block files that no table
/// entry references (idx-format.md §4.5; OpenVisus's in-place rewrites leave them). Files that do
/// not look like anything hzio or OpenVisus writes are reported as foreign and never removed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hzio/format/hzio_keys.h"
#include "hzio/format/idx_header.h"

namespace hzio {

class DatasetTransaction;

struct Leftover {
  enum class Kind {
    kTemporary,          // a writer's temporary file
    kGeneration,         // a data directory generation the header does not name
    kUnreferencedFile,   // a block file name no declared block maps to
    kUnreferencedBytes,  // a referenced block file with bytes no table entry covers
    kForeign,            // not a name hzio or OpenVisus writes: reported, left alone
    kAbandonedLock,      // `<name>.idx.lock` of a writer that is gone (OpenVisus waits on it)
  };
  Kind kind;
  std::string path;
  uint64_t bytes = 0;        // bytes reclaimable (kUnreferencedBytes: the uncovered bytes)
  uint64_t first_block = 0;  // kUnreferencedBytes: the file's first block and timestep
  int64_t time = 0;
};

/// A short description of a kind ("temporary file", ...).
const char* LeftoverKindName(Leftover::Kind kind);

struct LeftoverReport {
  std::vector<Leftover> items;
  std::vector<UnwrittenPart> never_written;     // declared parts without data
  std::optional<std::string> missing_directory;  // the data directory generation the header names
  uint64_t ReclaimableBytes() const;
  size_t Reclaimable() const;  // items that --repair removes or compacts
};

/// Inspects the local dataset `idx_path` whose (committed) header is `header`. Reads every
/// referenced block file's table; never changes anything.
LeftoverReport FindLeftovers(const IdxHeader& header, const std::string& idx_path);

/// Reclaims what `report` (made under `txn`'s lock from txn.committed()) lists: removes temporary
/// files, other generations and unreferenced files, rewrites files with unreferenced bytes packed
/// in a new generation and commits it. Returns the paths removed or rewritten.
std::vector<std::string> RepairLeftovers(DatasetTransaction& txn, const LeftoverReport& report);

/// Removes the data directory generation that `header` names, after a newer one was committed:
/// an hzio generation (`<base>.gN`) whole; the original directory only its block and temporary
/// files (and then the directories left empty); files beside the `.idx` one by one.
void RemoveGenerationOf(const IdxHeader& header, const std::string& idx_path);

/// Removes the generations of `header`'s data directory other than its own (what a killed
/// writer staged or left superseded). Returns the paths removed.
std::vector<std::string> RemoveOtherGenerations(const IdxHeader& header, const std::string& idx_path);

}  // namespace hzio
