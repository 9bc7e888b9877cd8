#include "hzio/access/block_source.h"

#include "hzio/util/error.h"

namespace hzio {

Error DatasetChangedError(const std::string& source) {
  return Error(ErrorCode::kChanged, source + ": dataset changed while reading; reopen it");
}

BlockSource::BlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                         std::string name)
    : header_(std::move(header)), layout_(std::move(layout)), name_(std::move(name)) {}

size_t BlockSource::DecodedBlockBytes(int field) const {
  return static_cast<size_t>(header_->fields[static_cast<size_t>(field)].dtype.BytesFor(layout_->samples_per_block()));
}

void BlockSource::FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const>, const BlockSink& sink) {
  Fetch(keys, sink);
}

void BlockSource::CheckKey(const BlockKey& key) const {
  Check(key.field >= 0 && key.field < static_cast<int>(header_->fields.size()), ErrorCode::kNotFound,
        name_ + ": no field index " + std::to_string(key.field) + " (the dataset has " +
            std::to_string(header_->fields.size()) + ")");
  Check(key.block < layout_->total_blocks(), ErrorCode::kOutOfRange,
        name_ + ": block " + std::to_string(key.block) + " is beyond the last block " +
            std::to_string(layout_->total_blocks() - 1));
}

}  // namespace hzio
