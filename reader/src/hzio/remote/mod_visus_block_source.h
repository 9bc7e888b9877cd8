/// Blocks of a dataset served over the mod_visus protocol (idx-format.md §7.5), by hzio serve or
/// the OpenVisus server: `rangequery` requests of up to 64 blocks each when the server advertises
/// aggregation (`ping` → `block-query-support-aggregation: 1`, §7.9), else one block a request;
/// composite replies split into their parts. Every request of a fetch is in flight at once through
/// the transport (http_client.h), the parts handed on on the shared pool as replies arrive. A block's payload is its part's body as sent, with the wire
/// codec (zip by default) and the layout of `visus-layout`; the block grid of §4.1 is checked
/// against `visus-nsamples`.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "hzio/access/block_source.h"
#include "hzio/remote/http_client.h"
#include "hzio/remote/mod_visus_url.h"

namespace hzio::internal_remote {

class ModVisusBlockSource : public BlockSource {
 public:
  /// `version` identifies the header served (the readdataset reply's ETag, else a hash of it).
  ModVisusBlockSource(std::shared_ptr<const IdxHeader> header, std::shared_ptr<const BlockLayout> layout,
                      std::string url, ModVisusUrl endpoint, std::shared_ptr<HttpClient> client,
                      std::string wire_compression, std::string version);

  std::string Version() const override { return version_; }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override;

  /// Blocks asked for in one request: 64, or 1 when the server does not aggregate (asked with
  /// `ping` on first use).
  size_t batch();

 private:
  ModVisusUrl endpoint_;
  std::shared_ptr<HttpClient> client_;
  std::string wire_compression_;
  std::string version_;
  std::once_flag ping_once_;
  size_t batch_ = 1;
};

}  // namespace hzio::internal_remote
