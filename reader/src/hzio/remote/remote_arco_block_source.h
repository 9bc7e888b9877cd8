/// Blocks of an ARCO dataset ((arco) > 0, idx-format.md §4.12) on a web server or in a bucket: one
/// object per block, named by ArcoBlockPath (format/arco_block_path.h) beside the `.idx`, fetched
/// whole, all of a fetch at once (many in flight). A 404 is an absent block (§4.6), as is an empty
/// object (OpenVisus reads those as missing too). Payloads carry no header: the codec is the
/// field's default_compression and the layout the field's default layout, as the header says —
/// not zip whatever the header says, as OpenVisus's own cloud reader assumes.
#pragma once

#include <memory>
#include <string>

#include "hzio/remote/object_block_source.h"

namespace hzio::internal_remote {

class RemoteArcoBlockSource : public ObjectBlockSource {
 public:
  RemoteArcoBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                        std::shared_ptr<const ObjectStore> store, std::string version, std::string idx_validator);

  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;

  /// The object key of a block.
  std::string BlockKeyOf(const BlockKey& key) const;

 private:
  std::string idx_stem_;
};

}  // namespace hzio::internal_remote
