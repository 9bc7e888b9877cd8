#include "hzio/format/arco_block_path.h"

#include <cstdio>

namespace hzio {

std::string ArcoBlockPath(const std::string& idx_stem, int64_t time, const std::string& field_name, uint64_t block) {
  std::string field;
  for (char c : field_name)
    if (c != ' ') field += c;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(block));
  const std::string h(hex, 16);
  return idx_stem + "/" + std::to_string(time) + "/" + field + "/" + h.substr(0, 4) + "/" + h.substr(4, 4) + "/" +
         h.substr(8, 4) + "/" + h.substr(12, 4) + ".bin";
}

}  // namespace hzio
