/// Opening a dataset that lives as files on a web server or as objects in an S3-compatible bucket
/// (object_url.h): the `.idx` and hzio's upload marker (upload_marker.h) are fetched in one round
/// trip — conditionally (If-None-Match) when the disk cache holds the header, which is then
/// reused — and the dataset reads its blocks through RemoteClassicBlockSource (classic files,
/// Range requests) or RemoteArcoBlockSource (one object per block), below the disk cache and the
/// in-memory LRU (remote_caches.h). The version (TEAM.md contract 3) is the `.idx`'s ETag, else its
/// Last-Modified, else a hash of its text. When the store cannot be reached and the header is in
/// the disk cache, the dataset opens from there and reads whatever blocks the cache holds.
#pragma once

#include <memory>
#include <string>

#include "hzio/access/dataset.h"

namespace hzio {

/// Throws kNotFound when there is no `.idx` at the URL, kIo for access denied (403), kUnavailable
/// when the store is unreachable and nothing is cached or an upload is in progress.
std::shared_ptr<Dataset> OpenObjectDataset(const std::string& url, const OpenOptions& options);

}  // namespace hzio
