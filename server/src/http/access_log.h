/// Structured access logs: one JSON object per line per request (to stderr or a file), with the
/// time, client address, user, method, target, route, status, body bytes and duration. The
/// Authorization header and any credential are never written.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace hzio::server {

struct AccessRecord {
  std::string remote, user, method, target, route;
  int status = 0;
  int64_t bytes = 0;
  double seconds = 0;
  bool aborted = false;  // the connection ended before the whole reply was sent
};

class AccessLog {
 public:
  /// Appends to `path` ("" = stderr); throws hzio::Error(kIo) naming the file.
  explicit AccessLog(const std::string& path);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  void Write(const AccessRecord& record);

  /// The JSON line of `record` (no newline).
  static std::string Format(const AccessRecord& record);

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  bool owned_ = false;
};

}  // namespace hzio::server
