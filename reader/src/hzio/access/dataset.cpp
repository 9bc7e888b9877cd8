#include "hzio/access/dataset.h"

#include <filesystem>

#include "hzio/access/local_dataset.h"
#include "hzio/storage/file.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

#ifdef HZIO_HAVE_REMOTE
#include "hzio/remote/remote_dataset.h"
#endif

namespace hzio {

Dataset::Dataset(IdxHeader header, std::string source, OpenOptions options)
    : header_(std::move(header)),
      layout_(std::make_shared<BlockLayout>(header_.bitmask, header_.bits_per_block)),
      source_(std::move(source)),
      options_(options) {}

Dataset::Resolved Dataset::Resolve(const BoxQuery& query) const {
  Resolved r;
  r.field = query.field.empty() ? 0 : header_.FieldIndex(query.field);
  const DType& dtype = header_.fields[static_cast<size_t>(r.field)].dtype;
  Check(dtype.ByteAligned(), ErrorCode::kUnsupported,
        source_ + ": field '" + header_.fields[static_cast<size_t>(r.field)].name + "' has dtype " +
            dtype.ToString() + "; only whole-byte sample types can be read");
  r.time = query.time.value_or(header_.time.Default());
  if (!header_.time.Contains(r.time)) {
    std::string list;
    for (int64_t t : header_.time.List(20)) list += (list.empty() ? "" : ",") + std::to_string(t);
    throw Error(ErrorCode::kNotFound, source_ + ": timestep " + std::to_string(r.time) +
                                          " is not in the dataset (timesteps: " + list + ")");
  }
  const int h = query.level.value_or(header_.maxh());
  Check(h >= 0 && h <= header_.maxh(), ErrorCode::kOutOfRange,
        source_ + ": level " + std::to_string(h) + " is outside 0.." + std::to_string(header_.maxh()));
  r.levels = LevelRange{query.only_level ? h : 0, h};
  r.box = query.box.value_or(header_.box);
  Check(r.box.dims() == header_.dims(), ErrorCode::kInvalidArgument,
        source_ + ": box " + r.box.ToRangesString() + " has " + std::to_string(r.box.dims()) +
            " axes, the dataset has " + std::to_string(header_.dims()));
  Check(!r.box.Empty(), ErrorCode::kInvalidArgument, source_ + ": box " + r.box.ToRangesString() + " is empty");
  Check(!r.box.Intersect(header_.box).Empty(), ErrorCode::kOutOfRange,
        source_ + ": box " + r.box.ToRangesString() + " is outside the dataset box " +
            header_.box.ToRangesString());
  try {
    r.grid = layout_->QueryGrid(r.box, r.levels);
  } catch (const Error& e) {
    throw Error(e.code(), source_ + ": " + e.what());
  }
  const int64_t bytes = dtype.BytesFor(r.grid.NumSamples());
  Check(bytes <= options_.max_query_bytes, ErrorCode::kTooLarge,
        source_ + ": the query result would be " + std::to_string(bytes) + " bytes, over the limit of " +
            std::to_string(options_.max_query_bytes));
  return r;
}

BoxResult Dataset::Read(const BoxQuery& query) {
  Resolved r = Resolve(query);
  BoxResult result{r.grid, Array(header_.fields[static_cast<size_t>(r.field)].dtype, r.grid.count)};
  ReadInto(r, result.data.data());
  return result;
}

bool IsRemoteUrl(const std::string& s) { return StartsWith(s, "http://") || StartsWith(s, "https://"); }

std::shared_ptr<Dataset> OpenDataset(const std::string& path_or_url, const OpenOptions& options) {
  if (IsRemoteUrl(path_or_url)) {
#ifdef HZIO_HAVE_REMOTE
    return OpenRemoteDataset(path_or_url, options);
#else
    throw Error(ErrorCode::kUnsupported, path_or_url + ": this hzio was built without HTTP support");
#endif
  }
  auto file = ReadFile::OpenIfExists(path_or_url);
  Check(file != nullptr, ErrorCode::kNotFound, path_or_url + ": no such dataset file");
  Check(file->size() <= (uint64_t{16} << 20), ErrorCode::kInvalidArgument,
        path_or_url + ": " + std::to_string(file->size()) + " bytes is too large for an .idx header");
  std::string text(file->size(), '\0');
  file->ReadAt(0, file->size(), reinterpret_cast<uint8_t*>(text.data()));
  const std::filesystem::path p(path_or_url);
  IdxHeader header = IdxHeader::Parse(text, path_or_url, p.stem().string());
  std::string dir = p.parent_path().string();
  if (dir.empty()) dir = ".";
  return std::make_shared<LocalDataset>(std::move(header), path_or_url, dir, options);
}

}  // namespace hzio
