/// Output PIDX 0.9.3 can read (issue 18). PIDX's reader ignores most of the `.idx`: it derives
/// the block-file names from the `.idx` path, `(bits)`, `(bitsperblock)` and the `(time)` template
/// instead of reading `(filename_template)` (idx-format.md §4.4), it knows vector dtypes only
/// counted ("3*float64", §1.4), reads every block as raw hz-ordered samples, and reads block
/// offsets as 32 bits (word 2 of the §4.5 table entry). A header made PIDX-readable here keeps
/// all of that true and stays a plain IDX header that OpenVisus and hzio read unchanged.
#pragma once

#include <string>

#include "hzio/format/idx_header.h"

namespace hzio {

/// The data directory template PIDX 0.9.3 derives for a dataset whose `.idx` is `<idx_stem>.idx`
/// (`./<stem>/` then the block-number digits rounded up to whole hex digits: `%01x` for one file,
/// `%02x`/`%03x`/`%04x` up to 16 bits, `%02x/` directories above). Files beside the template's
/// own (filename_template) guess (§2.4) are named the same way for the same block numbers.
std::string PidxFilenameTemplate(const std::string& idx_stem, int maxh, int bits_per_block);

/// Makes a validated header PIDX-readable for `<idx_stem>.idx`: sets the derived template and the
/// counted dtype spelling. Throws kUnsupported naming the key when PIDX 0.9.3 cannot read such a
/// dataset at all (compressed or row-major blocks, a dtype it does not know, not 3-D, a box not at
/// the origin, block files of 4 GiB or more, interleaved blocks, a time template that is not one
/// directory level, timesteps that are not one contiguous range).
void MakePidxReadable(IdxHeader& header, const std::string& idx_stem);

}  // namespace hzio
