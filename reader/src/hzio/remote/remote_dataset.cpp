// Remote datasets over the mod_visus protocol (idx-format.md §7): the header from `readdataset`
// (§7.4); box queries as server-side `boxquery` requests (§7.6, the result grid of §3.4 computed on
// both sides and checked), or, with `cached=1` in the URL, assembled from the server's blocks
// through the decoded-block cache. Works against hzio serve and the OpenVisus server alike.
#include "hzio/remote/remote_dataset.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "hzio/remote/http_client.h"
#include "hzio/remote/mod_visus_block_source.h"
#include "hzio/remote/mod_visus_reply.h"
#include "hzio/remote/mod_visus_url.h"
#include "hzio/remote/object_dataset.h"
#include "hzio/remote/object_url.h"
#include "hzio/remote/remote_caches.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

using internal_remote::CachedHeader;
using internal_remote::DecodeArrayPart;
using internal_remote::HttpClient;
using internal_remote::HttpResponse;
using internal_remote::ModVisusBlockSource;
using internal_remote::ModVisusUrl;
using internal_remote::ReplyError;

// Box replies above this size are split into slabs (the hzio server's default limit is 1 GiB).
// HZIO_REMOTE_MAX_REPLY_BYTES lowers it (tests).
const int64_t kMaxReplyBytes = [] {
  const char* env = std::getenv("HZIO_REMOTE_MAX_REPLY_BYTES");
  return env && std::atoll(env) > 0 ? static_cast<int64_t>(std::atoll(env)) : int64_t{256} << 20;
}();

class RemoteDataset : public Dataset {
 public:
  RemoteDataset(std::shared_ptr<BlockSource> blocks, std::string url, ModVisusUrl endpoint,
                std::shared_ptr<HttpClient> client, std::string wire_compression, OpenOptions options)
      : Dataset(std::move(blocks), std::move(url), options),
        url_(std::move(endpoint)),
        client_(std::move(client)),
        wire_compression_(std::move(wire_compression)) {}

  void ReadInto(const Resolved& query, uint8_t* out) override {
    if (url_.cached) Dataset::ReadInto(query, out);  // assembled from cached blocks
    else ReadThroughBoxQuery(query, out);
  }

 private:
  // Large results are fetched as slabs along the slowest axis, each an exact sub-grid of the
  // result (its box runs from one grid row to another), so no server limit is hit by one reply.
  void ReadThroughBoxQuery(const Resolved& query, uint8_t* out) {
    const Field& field = header_.fields[static_cast<size_t>(query.field)];
    const int last = query.grid.dims() - 1;
    const int64_t rows = query.grid.count[last];
    const int64_t row_bytes = field.dtype.BytesFor(query.grid.NumSamples() / rows);
    const int64_t rows_per_slab = std::clamp<int64_t>(kMaxReplyBytes / std::max<int64_t>(row_bytes, 1), 1, rows);
    for (int64_t r0 = 0; r0 < rows; r0 += rows_per_slab) {
      const int64_t r1 = std::min(rows, r0 + rows_per_slab);
      Resolved slab = query;
      slab.grid.origin[last] = query.grid.origin[last] + r0 * query.grid.stride[last];
      slab.grid.count[last] = r1 - r0;
      slab.box.p1[last] = slab.grid.origin[last];
      slab.box.p2[last] = query.grid.origin[last] + (r1 - 1) * query.grid.stride[last] + 1;
      uint8_t* dst = out + r0 * row_bytes;
      if (slab.box.p2[last] <= header_.box.p1[last] || slab.box.p1[last] >= header_.box.p2[last]) {
        // Rows in the padding outside the dataset box: servers refuse such a box; they hold the
        // default value (§3.4).
        const std::vector<uint8_t> fill = field.DefaultSample();
        for (int64_t i = 0; i < slab.grid.NumSamples(); ++i)
          std::memcpy(dst + i * static_cast<int64_t>(fill.size()), fill.data(), fill.size());
        continue;
      }
      if (rows_per_slab == rows) slab.box = query.box;  // one request: the box exactly as asked
      ReadSlab(field, slab, dst);
    }
  }

  void ReadSlab(const Field& field, const Resolved& query, uint8_t* out) {
    const std::string request = url_.Request({{"action", "boxquery"},
                                              {"field", field.name},
                                              {"time", FormatFixed6(static_cast<double>(query.time))},
                                              {"compression", wire_compression_},
                                              {"fromh", std::to_string(query.levels.from)},
                                              {"toh", std::to_string(query.levels.to)},
                                              {"maxh", std::to_string(header_.maxh())},
                                              {"box", query.box.ToInclusiveString()}});
    HttpResponse res = client_->Get(request);
    if (res.status < 200 || res.status >= 300) throw ReplyError(request, res);
    DecodeArrayPart(res, field.dtype, query.grid.count, out,
                    static_cast<size_t>(field.dtype.BytesFor(query.grid.NumSamples())), request);
  }

  ModVisusUrl url_;
  std::shared_ptr<HttpClient> client_;
  std::string wire_compression_;
};

// The header's version: the readdataset reply's ETag when the server sends one, else a hash of
// the header text (FNV-1a), so a server serving a new version changes it either way.
std::string HeaderVersion(const HttpResponse& reply) {
  if (reply.HasHeader("etag")) return "etag:" + reply.Header("etag");
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : reply.body) h = (h ^ c) * 1099511628211ull;
  return "header:" + std::to_string(h);
}

}  // namespace

std::shared_ptr<Dataset> OpenRemoteDataset(const std::string& url, const OpenOptions& options) {
  ModVisusUrl endpoint = ModVisusUrl::Parse(url);
  auto client = std::make_shared<HttpClient>();
  const std::string id = internal_remote::RedactUrl(url);
  const std::shared_ptr<DiskCache> disk = endpoint.cached ? internal_remote::OpenDiskCache(options) : nullptr;
  // The dataset URL itself is the readdataset request (§7.4, §7.9 step 1).
  const std::string request = endpoint.Request({});
  CachedHeader header;
  try {
    HttpResponse res = client->Get(request);
    if (res.status < 200 || res.status >= 300) throw ReplyError(request, res);
    Check(!res.body.empty(), ErrorCode::kCorrupt, request + ": empty dataset description");
    header = CachedHeader{res.body, res.Header("etag"), HeaderVersion(res)};
    if (disk) {
      std::optional<CachedHeader> cached = internal_remote::LoadCachedHeader(*disk, id);
      if (!cached || cached->version != header.version || cached->text != header.text)
        internal_remote::StoreCachedHeader(*disk, id, header);
    }
  } catch (const Error& e) {
    // With cached=1 a server that cannot be reached still serves what the disk cache holds.
    std::optional<CachedHeader> cached =
        disk && e.code() == ErrorCode::kUnavailable ? internal_remote::LoadCachedHeader(*disk, id) : std::nullopt;
    if (!cached) throw;
    header = *cached;
  }
  auto parsed = std::make_shared<const IdxHeader>(IdxHeader::Parse(header.text, url, "visus"));
  auto layout = std::make_shared<const BlockLayout>(parsed->bitmask, parsed->bits_per_block);
  auto it = endpoint.params.find("compression");
  const std::string wire = it != endpoint.params.end() && !it->second.empty() ? it->second : "zip";
  endpoint.params.erase("compression");
  endpoint.params.erase("time");
  std::shared_ptr<BlockSource> blocks =
      std::make_shared<ModVisusBlockSource>(parsed, layout, url, endpoint, client, wire, header.version);
  // cached=1: blocks through the disk cache and the process's decoded-block LRU, as OpenVisus's
  // ModVisusAccess with its local cache does.
  if (endpoint.cached) blocks = internal_remote::WithRemoteCaches(std::move(blocks), disk, id, options);
  return std::make_shared<RemoteDataset>(std::move(blocks), url, std::move(endpoint), std::move(client), wire, options);
}

namespace {

// http(s):// names a mod_visus server's dataset or a file on a web server / in a bucket.
std::shared_ptr<Dataset> OpenHttpDataset(const std::string& url, const OpenOptions& options) {
  return internal_remote::IsModVisusUrl(url) ? OpenRemoteDataset(url, options) : OpenObjectDataset(url, options);
}

}  // namespace

void RegisterRemoteOpeners(DatasetOpeners& openers) {
  openers.Register("http", OpenHttpDataset);
  openers.Register("https", OpenHttpDataset);
  openers.Register("s3", OpenObjectDataset);
}

}  // namespace hzio
