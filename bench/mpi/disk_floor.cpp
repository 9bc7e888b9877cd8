#include "disk_floor.h"

#include <vector>

#include "hzio/storage/block_file_write.h"

namespace hzio_bench {

void WriteDiskFloor(const S3dCase& c, const std::string& dir) {
  std::vector<hzio::ByteSpan> pieces;
  for (const auto& d : c.data) pieces.push_back(hzio::ByteSpan{d.data(), static_cast<int64_t>(d.size())});
  hzio::WriteWholeFile(dir + "/diskfloor_" + std::to_string(c.rank) + ".bin", pieces, c.durable, hzio::DirectIo::kAuto);
}

}  // namespace hzio_bench
