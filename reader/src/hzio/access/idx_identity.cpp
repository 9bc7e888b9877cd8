#include "hzio/access/idx_identity.h"

#include "hzio/util/error.h"

namespace hzio {

IdxIdentity::IdxIdentity(std::string idx_path, std::optional<FileIdentity> known) : idx_path_(std::move(idx_path)) {
  if (!known) known = StatIdentity(idx_path_);
  Check(known.has_value(), ErrorCode::kNotFound, idx_path_ + ": no such dataset file");
  identity_ = *known;
}

bool IdxIdentity::Changed() const {
  const std::optional<FileIdentity> now = StatIdentity(idx_path_);
  return !now || *now != identity_;
}

}  // namespace hzio
