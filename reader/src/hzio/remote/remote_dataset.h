/// Datasets served over HTTP by hzio or OpenVisus (`http://HOST:PORT/mod_visus?dataset=NAME`,
/// idx-format.md §7): box queries run as server-side `boxquery` requests (large results fetched as
/// slabs of exact sub-grids); with `&cached=1` in the URL, as batched `rangequery` block requests
/// (composite replies, §7.5) through an in-memory LRU cache of decoded blocks, as OpenVisus's
/// ModVisusAccess does. libcurl handles are pooled (connection reuse); transient failures are
/// retried a bounded number of times.
/// OpenDataset() (access/dataset.cpp) calls OpenRemoteDataset for http:// and https:// URLs when
/// hzio::core is built with HZIO_BUILD_REMOTE (libcurl).
#pragma once

#include <memory>
#include <string>

#include "hzio/access/dataset.h"

namespace hzio {

/// Loads the header from `url` and returns a Dataset whose queries go to the server.
/// Throws kUnavailable when the server cannot be reached, kNotFound for an unknown dataset.
std::shared_ptr<Dataset> OpenRemoteDataset(const std::string& url, const OpenOptions& options);

}  // namespace hzio
