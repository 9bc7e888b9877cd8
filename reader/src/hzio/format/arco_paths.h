/// ARCO one-file-per-block naming (idx-format.md §4.12): where OpenVisus's `DiskAccess` (and,
/// relative to an object URL, its cloud access) keeps block `b` of field `f` at timestep `t`:
/// `<idx path without extension>/<t>/<f>/<16 hex digits of b in 4 groups of 4>.bin`, the time
/// printed as an integer with everything but letters and digits dropped ("-3" becomes "3", as
/// OpenVisus's `StringUtils::onlyAlNum` does), the field name with its spaces removed. Pure string
/// functions, shared by the local ARCO reader and writer and by any object-store backend, so that
/// every ARCO path hzio makes comes from one place. Also the byte sizes users give for `(arco)`
/// ("1mb", "512kb", bytes) and the `(arco)` sanity bounds of §1.7 step 9.
#pragma once

#include <cstdint>
#include <string>

#include "hzio/format/idx_header.h"

namespace hzio {

/// The timestep's path component: "7" for 7, "3" for -3 (§4.12; OpenVisus drops the sign, so an
/// ARCO dataset cannot hold both t and -t: writers refuse negative timesteps).
std::string ArcoTimeName(int64_t time);
/// The field's path component: its name without spaces.
std::string ArcoFieldName(const std::string& field_name);
/// "<time>/<field>": the directory of one field at one timestep, relative to the ARCO root.
std::string ArcoPartName(int64_t time, const std::string& field_name);
/// "0000/0000/0000/0001.bin": the block's file relative to its part directory (`$(block:%016x:%04x)`
/// plus OpenVisus's default `.bin` extension).
std::string ArcoBlockName(uint64_t block);
/// The ARCO root of a dataset: its `.idx` path or object URL without the extension of its last
/// component (and without a URL's query string): "/d/visus.idx" -> "/d/visus".
std::string ArcoRoot(const std::string& idx_path_or_url);
/// root + "/" + ArcoPartName + "/" + ArcoBlockName.
std::string ArcoBlockPath(const std::string& root, int64_t time, const std::string& field_name, uint64_t block);

/// The largest per-sample byte size of the header's fields (OpenVisus's `getMaxFieldSize`).
int64_t MaxFieldBytes(const IdxHeader& header);

/// Bounds of `(arco)` hzio accepts: a block must hold at least two samples of the widest field,
/// and the value must fit the 32-bit integer OpenVisus reads it into.
inline constexpr int64_t kMaxArcoBytes = (int64_t{1} << 31) - 1;

/// Parses a byte size as OpenVisus's `getByteSizeFromString` reads `arco=`: a number (decimals
/// allowed) with an optional unit `b`, `kb`, `mb`, `gb` (also `k`, `m`, `g`, `kib`, `mib`, `gib`;
/// powers of 1024; any case). Throws kInvalidArgument naming `what` for anything else or a
/// value that is not positive.
int64_t ParseByteSize(const std::string& text, const std::string& what);

}  // namespace hzio
