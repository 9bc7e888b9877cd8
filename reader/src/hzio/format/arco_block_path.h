/// Where an ARCO dataset keeps a block (idx-format.md §4.12): one file or object per block,
/// `<idx name without extension>/<time>/<field>/<16 hex digits of the block id in 4 groups of 4>.bin`
/// beside the `.idx` (OpenVisus's Access::getBlockFilename with the `$(block:%016x:%04x)`
/// template), e.g. `visus/0/data/0000/0000/0000/0001.bin`. The same names serve local ARCO
/// folders and objects in a bucket (OpenVisus's CloudStorageAccess).
#pragma once

#include <cstdint>
#include <string>

namespace hzio {

/// The path of block `block` of field `field_name` at timestep `time`, relative to the folder of
/// the `.idx` whose file name without extension is `idx_stem` ("visus"). The time is printed as an
/// integer; spaces are removed from the field name.
std::string ArcoBlockPath(const std::string& idx_stem, int64_t time, const std::string& field_name, uint64_t block);

}  // namespace hzio
