/// Datasets served over HTTP by hzio or OpenVisus (`http://HOST:PORT/mod_visus?dataset=NAME`,
/// idx-format.md §7): box queries run as server-side `boxquery` requests.
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
