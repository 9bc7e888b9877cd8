// The keys PIDX 0.9.3 adds to its headers (idx-format.md §1.2): which of its layouts a dataset
// uses. OpenVisus ignores them (and so misreads the chunked layout); hzio reads the plain IDX
// layout and refuses the others clearly until it reads them.
#include "hzio/format/idx_header.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

// PIDX_NO_COMPRESSION, PIDX_CHUNKING_ONLY, PIDX_CHUNKING_ZFP (PIDX_define.h).
constexpr int64_t kPidxNoCompression = 0;
constexpr int64_t kPidxChunkingOnly = 1;
constexpr int64_t kPidxChunkingZfp = 2;

}  // namespace

void CheckPidxLayout(const IdxHeader& header) {
  // PIDX's other io modes store partitions with local coordinates, raw arrays or particles; any
  // other value is not PIDX's and, as OpenVisus does, is ignored.
  if (const std::string* mode = header.Metadata("io mode"))
    Check(*mode != "l_part_idx" && *mode != "raw" && *mode != "particle", ErrorCode::kUnsupported,
          "PIDX io mode '" + *mode + "' ((io mode) " + *mode + ") is not supported: only PIDX's idx mode writes IDX blocks");
  if (const std::string* endian = header.Metadata("endian"))
    Check(ToLower(*endian) != "big", ErrorCode::kUnsupported,
          "big-endian samples ((endian) big) are not supported");
  if (const std::string* type = header.Metadata("compression type")) {
    int64_t t = 0;
    try {
      t = ParseInt64(*type, "(compression type)");
    } catch (const Error&) {
      throw Error(ErrorCode::kUnsupported, "(compression type) '" + *type + "' is not a PIDX layout");
    }
    Check(t != kPidxChunkingOnly, ErrorCode::kUnsupported,
          "PIDX chunked layout: not yet supported ((compression type) 1, PIDX_CHUNKING_ONLY)");
    Check(t != kPidxChunkingZfp, ErrorCode::kUnsupported,
          "PIDX chunked zfp layout: not supported ((compression type) 2, PIDX_CHUNKING_ZFP)");
    Check(t == kPidxNoCompression, ErrorCode::kUnsupported,
          "(compression type) " + *type + " is not a PIDX layout");
  }
}

}  // namespace hzio
