/// What the block sources of datasets on a web server or in a bucket share (idx-format.md §4.3 and
/// §4.12 over HTTP): the store they read from (object_store.h), the dataset's version (the `.idx`
/// object's validator or hash, TEAM.md contract 3) and the check that the `.idx` is still that
/// version, used when a block file turns out missing, short or replaced (kChanged: "dataset
/// changed while reading; reopen it").
#pragma once

#include <memory>
#include <string>

#include "hzio/access/block_source.h"
#include "hzio/remote/object_store.h"

namespace hzio::internal_remote {

class ObjectBlockSource : public BlockSource {
 public:
  /// `version` is the dataset's version string; `idx_validator` the `.idx` response's
  /// ObjectValidator ("" when the server sent none: changes cannot be detected).
  ObjectBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                    std::shared_ptr<const ObjectStore> store, std::string version, std::string idx_validator);

  std::string Version() const override { return version_; }
  const ObjectStore& store() const { return *store_; }

 protected:
  /// Whether the `.idx` is no longer the version this source was opened with (one HEAD request;
  /// false when that cannot be told).
  bool IdxChanged() const;
  /// kChanged naming the dataset.
  Error ChangedError() const;

 private:
  std::shared_ptr<const ObjectStore> store_;
  std::string version_;
  std::string idx_validator_;
};

}  // namespace hzio::internal_remote
