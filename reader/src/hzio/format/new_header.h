/// The header of a new dataset, made as OpenVisus's CreateIdx makes it (idx-format.md §1.6):
/// version 6, box [0, dims), the §2.1 bitmask guess, the §2.3 blocksperfile choice and the §2.4
/// filename template guess. Shared by `hzio create`/`convert` and the Python package, so that a
/// dataset made either way has the same header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/format/idx_header.h"

namespace hzio {

/// Storage choices of a new dataset; they apply to every field.
struct NewHeaderOptions {
  std::string compression = "zip";  // "" (raw), "zip" or "lz4": OpenVisus CreateIdx's default
  bool hz_layout = false;           // OpenVisus v6 default: row-major blocks
  int bits_per_block = 0;           // 0 = min(maxh, 16)
  /// Blocks per file; -1 = all in one file. Default: one file per timestep when a timestep is
  /// under 2 GiB (what Python's CreateIdx does), else OpenVisus's §2.3 guess.
  std::optional<int64_t> blocks_per_file;
  /// Timesteps [first, last] with the template "time_%04d/"; none = one timestep, 0, and no time
  /// in file names.
  std::optional<std::pair<int64_t, int64_t>> time;
};

/// Throws kInvalidArgument unless `name` is a field name OpenVisus parses back unchanged: letters,
/// digits, '_', '-', '.', and not containing "compressed" (§1.3 finds options by substring).
void CheckNewFieldName(const std::string& name);

/// A validated version-6 header for a new dataset at `<dir>/<idx_stem>.idx` of `dims` samples
/// (x first) holding `fields` (their compression and layout are set from `options`). Field
/// names are checked with CheckNewFieldName.
IdxHeader NewIdxHeader(const std::string& idx_stem, const Point& dims, std::vector<Field> fields,
                       const NewHeaderOptions& options);

}  // namespace hzio
