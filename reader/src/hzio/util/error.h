/// Errors raised by hzio. Every failure is an `hzio::Error` carrying a code (what kind of failure,
/// used to pick an HTTP status or an exit code) and a message that names the file, URL or
/// parameter that was wrong. hzio uses exceptions consistently; nothing returns error codes.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hzio {

enum class ErrorCode {
  kInvalidArgument,    // a malformed parameter, box, level, dtype, or header value
  kNotFound,           // unknown dataset, field, timestep, or a missing file that must exist
  kOutOfRange,         // a box outside the dataset, a level above maxh
  kCorrupt,            // bytes on disk or on the wire that do not decode as the format says
  kUnsupported,        // a valid format feature hzio does not implement (zfp, jpg, version < 6 writes)
  kIo,                 // the operating system refused a read or write
  kTooLarge,           // a query or allocation beyond a configured or sane limit
  kUnavailable,        // a remote peer could not be reached or answered 5xx
  kChanged,            // a writer committed a new version of the dataset while it was read: reopen it
  kLocked,             // another writer holds the dataset's lock (the message names its host and PID)
  kInternal,           // a bug
};

/// Short stable name of a code, e.g. "invalid_argument" (used by the JSON API).
std::string_view ErrorCodeName(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Throws Error(code, message) unless `condition` holds.
inline void Check(bool condition, ErrorCode code, const std::string& message) {
  if (!condition) throw Error(code, message);
}

}  // namespace hzio
