/// Growing an existing dataset so that `hzio convert` can add to it what a first convert did not
/// declare (design.md §3): one more timestep, or one more field. Each call is a transaction of
/// its own (access/dataset_transaction.h); `hzio convert` does the same inside the transaction
/// that also writes the data (DatasetTransaction::AddTimestep/AddField), so that the part and
/// its data commit together.
///  * A timestep (idx-format.md §1.5, §6) has files of its own, named through the time template,
///    so only the `(time)` line changes. A dataset without a time template has one timestep only.
///  * A field (§4.5, §6) adds `blocksperfile` entries to the table at the start of every block
///    file of every timestep: every file is written anew, widened, in a new generation.
/// The new part is recorded as not written yet (format/hzio_keys.h).
#pragma once

#include <cstdint>
#include <string>

#include "hzio/access/dataset_transaction.h"
#include "hzio/format/idx_header.h"

namespace hzio {

/// Declares timestep `time` in the dataset at `idx_path`; returns the new header.
/// Throws kUnsupported for a dataset without a time template.
IdxHeader AddTimestep(const std::string& idx_path, int64_t time, const TransactionOptions& options = {});

/// Appends `field` to the dataset at `idx_path`, widening the tables of all its block files;
/// returns the new header. Throws kUnsupported for `* *` time specs and versions < 6.
IdxHeader AddField(const std::string& idx_path, const Field& field, const TransactionOptions& options = {});

/// The signatures from before writes were transactions, for their callers: `header` is not used
/// (the header committed when the lock is taken is the one extended).
IdxHeader AddTimestep(const std::string& idx_path, const IdxHeader& header, int64_t time);
IdxHeader AddField(const std::string& idx_path, const IdxHeader& header, const Field& field);

}  // namespace hzio
