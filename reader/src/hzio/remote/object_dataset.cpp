#include "hzio/remote/object_dataset.h"

#include "hzio/remote/byte_range.h"
#include "hzio/remote/crypto.h"
#include "hzio/remote/object_store.h"
#include "hzio/remote/remote_arco_block_source.h"
#include "hzio/remote/remote_caches.h"
#include "hzio/remote/remote_classic_block_source.h"
#include "hzio/remote/upload_marker.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

using namespace internal_remote;

// A .idx is a few KiB; anything this large is not one.
constexpr size_t kMaxHeaderBytes = size_t{16} << 20;

// The dataset's version: the .idx's validator (or the hash of its text when the server sends
// none), and hzio's upload marker's when there is one (every upload writes a new marker).
std::string VersionOf(const std::string& validator, const std::string& text, const std::string& marker_validator) {
  return "remote:" + (validator.empty() ? "sha256:" + HexLower(Sha256(text)) : validator) +
         (marker_validator.empty() ? "" : "|upload:" + marker_validator);
}

}  // namespace

std::shared_ptr<Dataset> OpenObjectDataset(const std::string& url, const OpenOptions& options) {
  auto store = std::make_shared<ObjectStore>(ParseObjectLocation(url), ProcessEnvironment(),
                                             std::make_shared<HttpClient>());
  const std::string& id = store->location().display;
  const std::shared_ptr<DiskCache> disk = OpenDiskCache(options);
  std::optional<CachedHeader> cached = disk ? LoadCachedHeader(*disk, id) : std::nullopt;

  // The .idx and the upload marker in one round trip.
  const std::string idx_key = store->IdxKey();
  const std::string marker_key = store->Key(UploadMarkerName(store->location().idx_name));
  std::vector<ObjectStore::Get> gets(2);
  gets[0].key = idx_key;
  gets[0].max_bytes = kMaxHeaderBytes;
  // Revalidation by date first: an .idx uploaded again with the same bytes keeps its ETag (S3's is
  // a content hash) while the blocks beside it may have changed.
  if (cached) {
    gets[0].if_modified_since = ValidatorPart(cached->validator, "modified");
    if (gets[0].if_modified_since.empty()) gets[0].if_none_match = ValidatorPart(cached->validator, "etag");
  }
  gets[1].key = marker_key;
  gets[1].max_bytes = 64 * 1024;
  HttpResponse responses[2];
  CachedHeader header;
  try {
    store->GetMany(gets, [&](size_t i, HttpResponse&& r) { responses[i] = std::move(r); });
    if (responses[0].status >= 500) throw store->ResponseError(idx_key, responses[0]);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kUnavailable) throw;
    if (!cached)
      throw Error(e.code(), std::string(e.what()) + " (and the dataset's header is not in the disk cache" +
                                (disk ? " " + disk->dir() : std::string()) + ")");
    header = *cached;  // offline: the cached header, and the blocks the cache holds
    responses[0].status = 0;
  }
  if (responses[0].status != 0) {
    const HttpResponse& idx = responses[0];
    const HttpResponse& marker = responses[1];
    // An upload that has not finished is refused first: its .idx may not be there yet.
    if (marker.status == 200) CheckUploadComplete(ParseUploadMarker(marker.body, store->Url(marker_key)), id);
    const std::string marker_validator = marker.status == 200 ? ObjectValidator(marker) : "";
    if (idx.status == 304 && cached) {
      header = *cached;
      header.version = VersionOf(header.validator, header.text, marker_validator);
    } else if (idx.status == 200) {
      header.text = idx.body;
      header.validator = ObjectValidator(idx);
      header.version = VersionOf(header.validator, header.text, marker_validator);
    } else if (idx.status == 404) {
      throw Error(ErrorCode::kNotFound, store->Url(idx_key) + ": no such dataset (HTTP 404)");
    } else {
      throw store->ResponseError(idx_key, idx);
    }
    if (disk && (!cached || cached->version != header.version || cached->text != header.text))
      StoreCachedHeader(*disk, id, header);
    if (marker.status != 200 && marker.status != 404 && marker.status != 403) {
      // 403: a public bucket that does not let anonymous readers list it answers so for objects
      // that do not exist.
      throw store->ResponseError(marker_key, marker);
    }
  }

  const std::string& idx_name = store->location().idx_name;
  const size_t dot = idx_name.find_last_of('.');
  const std::string stem = dot == std::string::npos || dot == 0 ? idx_name : idx_name.substr(0, dot);
  auto parsed = std::make_shared<const IdxHeader>(IdxHeader::Parse(header.text, id, stem));
  auto layout = std::make_shared<const BlockLayout>(parsed->bitmask, parsed->bits_per_block);
  std::shared_ptr<BlockSource> blocks;
  if (parsed->arco > 0)
    blocks = std::make_shared<RemoteArcoBlockSource>(parsed, layout, store, header.version, header.validator);
  else
    blocks = std::make_shared<RemoteClassicBlockSource>(parsed, layout, store, header.version, header.validator);
  // The dataset is named by its URL without credentials (messages must not carry secrets).
  return std::make_shared<Dataset>(WithRemoteCaches(std::move(blocks), disk, id, options), id, options);
}

}  // namespace hzio
