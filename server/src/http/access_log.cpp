#include "http/access_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "hzio/util/error.h"

namespace hzio::server {

namespace {

std::string IsoTimeNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

AccessLog::AccessLog(const std::string& path) {
  if (path.empty()) {
    file_ = stderr;
    return;
  }
  file_ = std::fopen(path.c_str(), "a");
  Check(file_ != nullptr, ErrorCode::kIo, path + ": cannot open the access log: " + std::strerror(errno));
  owned_ = true;
}

AccessLog::~AccessLog() {
  if (owned_) std::fclose(file_);
}

std::string AccessLog::Format(const AccessRecord& r) {
  nlohmann::json j{{"time", IsoTimeNow()},
                   {"remote", r.remote},
                   {"user", r.user.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.user)},
                   {"method", r.method},
                   {"target", r.target.size() > 2048 ? r.target.substr(0, 2048) + "..." : r.target},
                   {"route", r.route},
                   {"status", r.status},
                   {"bytes", r.bytes},
                   {"ms", static_cast<double>(static_cast<int64_t>(r.seconds * 1e5)) / 100.0}};
  if (r.aborted) j["aborted"] = true;
  // Invalid UTF-8 in a target is replaced, never a reason to lose the line.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void AccessLog::Write(const AccessRecord& record) {
  const std::string line = Format(record) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace hzio::server
