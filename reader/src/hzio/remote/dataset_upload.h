/// `hzio copy SRC s3://BUCKET/KEY/visus.idx` (and OpenVisus's `http(s)://HOST/BUCKET/KEY/visus.idx?
/// endpoint_url=...&access_key=...&secret_key=...` form; credentials as for reads, aws_config.h):
/// a dataset uploaded into an S3-compatible store as an ARCO dataset (idx-format.md §4.12), one
/// object per block, laid out as OpenVisus's copyDatasetToCloud does, so that OpenVisus's own S3
/// reader reads it. The samples go through CopyDataset's pipeline (access/dataset_copy.h: pieces
/// in hz order, blocks encoded as they complete) into an ObjectUploader (object_uploader.h): memory
/// is bounded, many PUTs are in flight. The order makes a half-done upload recognisable
/// (upload_marker.h): the marker `uploading`, every block object, the `.idx`, the marker `complete`.
/// Running an interrupted upload again overwrites what it left and completes it.
///
/// Only ARCO goes to object stores: classic block files (many blocks per file, a table in front,
/// written piece by piece) would need ranged writes that object stores do not have.
#pragma once

#include <cstdint>
#include <string>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_copy.h"

namespace hzio {

/// Block size of an upload of a classic dataset without `--arco` (OpenVisus create_idx's "1mb").
constexpr int64_t kDefaultUploadArcoBytes = int64_t{1} << 20;

struct UploadResult {
  std::string destination;   // the URL without credentials
  int64_t sample_bytes = 0;  // samples copied
  uint64_t objects = 0;      // objects stored (blocks, `.idx`, marker)
  uint64_t bytes = 0;        // bytes stored
  bool resumed = false;      // an interrupted upload was there and was overwritten
};

/// Uploads `source` to `url` with `options` (options.arco > 0; 0 takes the source's ARCO block
/// size, or kDefaultUploadArcoBytes for a classic source). Refuses (kInvalidArgument) a
/// destination already holding a dataset unless it is an upload that did not finish, a plain web
/// server (kUnsupported), classic block geometry (blocks_per_file; kUnsupported). `notify`
/// receives notes for the user. Errors name the object's URL without credentials.
UploadResult UploadDataset(Dataset& source, const std::string& url, CopyOptions options,
                           const std::function<void(const std::string&)>& notify = {});

}  // namespace hzio
