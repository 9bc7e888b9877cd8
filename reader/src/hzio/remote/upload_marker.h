/// hzio's upload marker: the object `<idx name>.hzio-upload` (e.g. `visus.idx.hzio-upload`) beside
/// a dataset's `.idx` in a bucket, which tells readers whether an upload by `hzio copy` is complete.
/// An upload writes it first with `state uploading`, then every block object, then the `.idx`,
/// and finally the marker again with `state complete` — so the `.idx` comes after the data
/// (OpenVisus readers only need that) and the marker after everything. hzio readers fetch the
/// marker with the `.idx` (the same round trip) and refuse a dataset whose marker says
/// `uploading` (an upload running, or one that died: run it again). A dataset without a marker
/// was written by another tool and is read as it is.
///
/// The marker is text, one `key value` per line, the first line `hzio-upload 1`:
///   state complete|uploading, idx-sha256 <hex of the .idx uploaded>, objects <count>,
///   bytes <total>, writer <program and version>, host <name>, pid <id>, time <UTC, ISO 8601>.
#pragma once

#include <cstdint>
#include <string>

namespace hzio::internal_remote {

struct UploadMarker {
  std::string state;       // "uploading" or "complete"
  std::string idx_sha256;  // of the .idx the upload wrote (complete only)
  uint64_t objects = 0, bytes = 0;
  std::string writer, host, time;
  int64_t pid = 0;
};

/// "visus.idx" -> "visus.idx.hzio-upload".
std::string UploadMarkerName(const std::string& idx_name);
std::string FormatUploadMarker(const UploadMarker& marker);
/// Throws kCorrupt naming `where` when `text` is not a marker.
UploadMarker ParseUploadMarker(const std::string& text, const std::string& where);
/// Throws kUnavailable naming `where` (the dataset) when the marker says an upload has not finished.
void CheckUploadComplete(const UploadMarker& marker, const std::string& where);

}  // namespace hzio::internal_remote
