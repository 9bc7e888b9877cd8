#include "hzio/format/new_header.h"

#include "hzio/util/error.h"

namespace hzio {

void CheckNewFieldName(const std::string& name) {
  Check(!name.empty(), ErrorCode::kInvalidArgument, "empty field name");
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    Check(ok, ErrorCode::kInvalidArgument, "field name '" + name + "' may only use letters, digits, '_', '-' and '.'");
  }
  Check(name.find("compressed") == std::string::npos, ErrorCode::kInvalidArgument,
        "field name '" + name + "' contains 'compressed', which OpenVisus reads as an option (idx-format.md §1.3)");
}

IdxHeader NewIdxHeader(const std::string& idx_stem, const Point& dims, std::vector<Field> fields,
                       const NewHeaderOptions& options) {
  IdxHeader h;
  h.version = 6;
  h.box = Box(Point(dims.dims), dims);
  h.bitmask = Bitmask::Guess(dims);
  int64_t bytes_per_timestep = 0;
  for (Field& f : fields) {
    CheckNewFieldName(f.name);
    f.compression = options.compression;
    f.hz_layout = options.hz_layout;
    bytes_per_timestep += f.dtype.BytesFor(dims.Product());
  }
  h.fields = std::move(fields);
  h.bits_per_block = options.bits_per_block;
  h.blocks_per_file = options.blocks_per_file.value_or(bytes_per_timestep < (int64_t{2} << 30) ? -1 : 0);
  if (options.time) {
    h.time = TimeSpec::Range(options.time->first, options.time->second, "time_%04d/");
    h.has_time = true;
  }
  h.Validate(idx_stem);
  if (h.filename_template.empty()) h.filename_template = GuessFilenameTemplate(idx_stem, h.maxh(), h.bits_per_block);
  return h;
}

}  // namespace hzio
