#include "hzio/access/dataset_extend.h"

#include "hzio/util/error.h"

namespace hzio {

namespace {

template <class Change>
IdxHeader Extend(const std::string& idx_path, const TransactionOptions& options, Change&& change) {
  DatasetTransaction txn(idx_path, options);
  Check(txn.exists(), ErrorCode::kNotFound, idx_path + ": no such dataset");
  change(txn);
  txn.Commit();
  return txn.committed();
}

}  // namespace

IdxHeader AddTimestep(const std::string& idx_path, int64_t time, const TransactionOptions& options) {
  return Extend(idx_path, options, [&](DatasetTransaction& txn) { txn.AddTimestep(time); });
}

IdxHeader AddField(const std::string& idx_path, const Field& field, const TransactionOptions& options) {
  return Extend(idx_path, options, [&](DatasetTransaction& txn) { txn.AddField(field); });
}

IdxHeader AddTimestep(const std::string& idx_path, const IdxHeader& /*header*/, int64_t time) {
  return AddTimestep(idx_path, time);
}

IdxHeader AddField(const std::string& idx_path, const IdxHeader& /*header*/, const Field& field) {
  return AddField(idx_path, field);
}

}  // namespace hzio
