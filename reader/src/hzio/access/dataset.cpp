#include "hzio/access/dataset.h"

#include "hzio/access/arco_block_source.h"
#include "hzio/access/box_assembler.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset_openers.h"
#include "hzio/access/pidx_chunk_source.h"
#include "hzio/storage/file.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

Dataset::Dataset(std::shared_ptr<BlockSource> blocks, std::string source, OpenOptions options)
    : header_(blocks->header()),
      layout_(blocks->shared_layout()),
      source_(std::move(source)),
      options_(options),
      blocks_(std::move(blocks)) {}

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

void Dataset::ReadInto(const Resolved& query, uint8_t* out) {
  AssembleBox(*blocks_, BoxRequest{query.field, query.time, query.levels, query.grid, options_.threads}, out);
}

std::optional<DecodedBlock> Dataset::ReadBlock(int field, int64_t time, uint64_t block) {
  Check(field >= 0 && field < static_cast<int>(header_.fields.size()), ErrorCode::kNotFound,
        source_ + ": no field index " + std::to_string(field));
  Check(header_.time.Contains(time), ErrorCode::kNotFound,
        source_ + ": timestep " + std::to_string(time) + " is not in the dataset");
  DecodedBlock out;
  out.id = block;
  bool present = false;
  const BlockKey key{field, time, block};
  out.bytes.resize(blocks_->DecodedBlockBytes(field));
  uint8_t* const target = out.bytes.data();
  blocks_->FetchInto({&key, 1}, {&target, 1}, [&](size_t, EncodedBlock&& b) {
    if (!b.present) return;
    DecodeBlock(*blocks_, field, block, b, target);
    out.row_major = b.row_major;
    present = true;
  });
  if (!present) return std::nullopt;
  out.grid = layout_->BlockGrid(block);
  return out;
}

bool IsRemoteUrl(const std::string& s) {
  const std::string scheme = UrlScheme(s);
  return !scheme.empty() && scheme != "file";
}

std::shared_ptr<Dataset> OpenLocalDataset(const std::string& idx_path, const OpenOptions& options) {
  auto file = ReadFile::OpenIfExists(idx_path);
  Check(file != nullptr, ErrorCode::kNotFound, idx_path + ": no such dataset file");
  Check(file->size() <= (uint64_t{16} << 20), ErrorCode::kInvalidArgument,
        idx_path + ": " + std::to_string(file->size()) + " bytes is too large for an .idx header");
  std::string text(file->size(), '\0');
  file->ReadAt(0, file->size(), reinterpret_cast<uint8_t*>(text.data()));
  std::string stem = idx_path.substr(idx_path.find_last_of('/') + 1);
  if (const size_t dot = stem.find_last_of('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  auto header = std::make_shared<const IdxHeader>(IdxHeader::Parse(text, idx_path, stem));
  auto layout = std::make_shared<const BlockLayout>(header->bitmask, header->bits_per_block);
  std::shared_ptr<BlockSource> blocks;
  if (header->arco > 0) {  // one file per block (§4.12)
    ArcoBlockSource::Options source_options;
    source_options.threads = options.threads;
    blocks = std::make_shared<ArcoBlockSource>(header, layout, idx_path, file->identity(), source_options);
  } else {
    ClassicBlockSource::Options source_options;
    source_options.threads = options.threads;
    if (header->pidx_chunking)  // PIDX chunk records, presented as the full sample grid
      blocks = OpenPidxChunkBlocks(header, layout, idx_path, file->identity(), source_options);
    else
      blocks = std::make_shared<ClassicBlockSource>(header, layout, idx_path, file->identity(), source_options);
  }
  return std::make_shared<Dataset>(std::move(blocks), idx_path, options);
}

std::shared_ptr<Dataset> OpenDataset(const std::string& path_or_url, const OpenOptions& options) {
  const std::string scheme = UrlScheme(path_or_url);
  if (scheme.empty() || scheme == "file") {
    return OpenLocalDataset(scheme.empty() ? path_or_url : path_or_url.substr(7), options);
  }
  if (DatasetOpener opener = DatasetOpeners::Global().Find(scheme)) return opener(path_or_url, options);
  std::string known = "local .idx files";
  for (const std::string& s : DatasetOpeners::Global().Schemes()) known += ", " + s + "://";
  throw Error(ErrorCode::kUnsupported,
              path_or_url + ": this hzio reads no " + scheme + ":// URLs (it reads " + known + ")");
}

}  // namespace hzio
