#include "hzio/remote/upload_marker.h"

#include <sstream>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

std::string UploadMarkerName(const std::string& idx_name) { return idx_name + ".hzio-upload"; }

std::string FormatUploadMarker(const UploadMarker& m) {
  std::ostringstream out;
  out << "hzio-upload 1\n"
      << "state " << m.state << "\n";
  if (!m.idx_sha256.empty()) out << "idx-sha256 " << m.idx_sha256 << "\n";
  out << "objects " << m.objects << "\n"
      << "bytes " << m.bytes << "\n"
      << "writer " << m.writer << "\n"
      << "host " << m.host << "\n"
      << "pid " << m.pid << "\n"
      << "time " << m.time << "\n";
  return out.str();
}

UploadMarker ParseUploadMarker(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::string line;
  Check(static_cast<bool>(std::getline(in, line)) && Trim(line) == "hzio-upload 1", ErrorCode::kCorrupt,
        where + ": not an hzio upload marker (its first line is not 'hzio-upload 1')");
  UploadMarker m;
  while (std::getline(in, line)) {
    const std::string t = Trim(line);
    if (t.empty()) continue;
    const size_t space = t.find(' ');
    const std::string key = t.substr(0, space), value = space == std::string::npos ? "" : Trim(t.substr(space + 1));
    if (key == "state") m.state = value;
    else if (key == "idx-sha256") m.idx_sha256 = value;
    else if (key == "objects") m.objects = static_cast<uint64_t>(ParseInt64(value, where + ": objects"));
    else if (key == "bytes") m.bytes = static_cast<uint64_t>(ParseInt64(value, where + ": bytes"));
    else if (key == "writer") m.writer = value;
    else if (key == "host") m.host = value;
    else if (key == "pid") m.pid = ParseInt64(value, where + ": pid");
    else if (key == "time") m.time = value;
  }
  Check(m.state == "complete" || m.state == "uploading", ErrorCode::kCorrupt,
        where + ": the upload marker's state is '" + m.state + "' (expected complete or uploading)");
  return m;
}

void CheckUploadComplete(const UploadMarker& m, const std::string& where) {
  Check(m.state == "complete", ErrorCode::kUnavailable,
        where + ": an upload into this dataset has not finished (started " + m.time + " by " + m.writer + " on " +
            m.host + ", pid " + std::to_string(m.pid) +
            "); read it when the upload is complete, or run the upload again if it was interrupted");
}

}  // namespace hzio::internal_remote
