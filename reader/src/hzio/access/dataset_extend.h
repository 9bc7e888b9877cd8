/// Growing an existing dataset so that `hzio convert` can add to it what a first convert did not
/// declare (design.md §3): one more timestep, or one more field.
///  * A timestep (idx-format.md §1.5, §6) has files of its own, named through the time template,
///    so only the `(time)` line changes. A dataset without a time template has one timestep only.
///  * A field (§4.5, §6) adds `blocksperfile` entries to the table at the start of every block
///    file of every timestep; each existing file is rewritten with the larger table and its
///    payloads moved by the table's growth (offsets are absolute), then renamed into place.
/// The `.idx` is rewritten last, atomically.
#pragma once

#include <cstdint>
#include <string>

#include "hzio/format/idx_header.h"

namespace hzio {

/// Declares timestep `time` in `header` and rewrites `idx_path`; returns the new header.
/// Throws kUnsupported for a dataset without a time template.
IdxHeader AddTimestep(const std::string& idx_path, IdxHeader header, int64_t time);

/// Appends `field` to `header`, widens the tables of all existing block files, rewrites
/// `idx_path`; returns the new header. Throws kUnsupported for `* *` time specs and versions < 6.
IdxHeader AddField(const std::string& idx_path, IdxHeader header, const Field& field);

}  // namespace hzio
