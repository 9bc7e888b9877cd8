// A yardstick for durable writes, not a format: each rank's bytes as they are (no HZ encoding, no
// exchange, no block table) written to a file of its own the way hzio writes a durable block file
// (storage/block_file_write.h: O_DIRECT in 8 MiB chunks on up to four lanes, then fsync). Beside
// file-per-process (buffered write + fsync) it shows what this disk takes to make the bytes
// durable at its best; hzio's durable write cannot take less than this plus whatever of its
// encoding it does not hide.
#pragma once

#include <string>

#include "s3d_case.h"

namespace hzio_bench {

void WriteDiskFloor(const S3dCase& c, const std::string& dir);

}  // namespace hzio_bench
