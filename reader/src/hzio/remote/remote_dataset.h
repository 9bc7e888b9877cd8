/// Datasets served over HTTP by hzio or OpenVisus (`http://HOST:PORT/mod_visus?dataset=NAME`,
/// idx-format.md §7): box queries run as server-side `boxquery` requests (large results fetched as
/// slabs of exact sub-grids) — a remote box query is not a block read; with `&cached=1` in the
/// URL, box queries are assembled locally (box_assembler.h) from the server's blocks
/// (ModVisusBlockSource: batched `rangequery`, composite replies, §7.5) through the disk cache and
/// the process's decoded-block cache (remote_caches.h), as OpenVisus's ModVisusAccess does with its
/// local cache; such a dataset also opens from the disk cache when the server is unreachable.
/// Single blocks (ReadBlock) always come from the block source. Requests go through the one
/// transport (http_client.h: connection reuse, many in flight, bounded retries).
///
/// Registered into access/'s opener registry by hzio/builtin_openers.cpp when hzio::core is built
/// with HZIO_BUILD_REMOTE (libcurl, OpenSSL): http:// and https:// (mod_visus URLs here, other
/// URLs to object_dataset.h) and s3://.
#pragma once

#include <memory>
#include <string>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_openers.h"

namespace hzio {

/// Loads the header from `url` and returns a Dataset whose queries go to the server.
/// Throws kUnavailable when the server cannot be reached, kNotFound for an unknown dataset.
std::shared_ptr<Dataset> OpenRemoteDataset(const std::string& url, const OpenOptions& options);

/// Registers http://, https:// (mod_visus or files and objects) and s3://.
void RegisterRemoteOpeners(DatasetOpeners& openers);

}  // namespace hzio
