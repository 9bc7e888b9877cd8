#include "hzio/remote/object_block_source.h"

#include "hzio/remote/byte_range.h"

namespace hzio::internal_remote {

ObjectBlockSource::ObjectBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                                     std::shared_ptr<const ObjectStore> store, std::string version,
                                     std::string idx_validator)
    : BlockSource(std::move(header), std::move(layout), store->location().display),
      store_(std::move(store)),
      version_(std::move(version)),
      idx_validator_(std::move(idx_validator)) {}

bool ObjectBlockSource::IdxChanged() const {
  if (idx_validator_.empty()) return false;
  const HttpResponse head = store_->Head(store_->IdxKey());
  if (head.status == 404) return true;  // removed (or being replaced)
  if (head.status != 200) return false;
  return ObjectValidator(head) != idx_validator_;
}

Error ObjectBlockSource::ChangedError() const {
  return Error(ErrorCode::kChanged, name() + ": dataset changed while reading; reopen it");
}

}  // namespace hzio::internal_remote
