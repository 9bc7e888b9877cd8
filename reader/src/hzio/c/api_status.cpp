#include "hzio/c/api_status.h"

#include <limits>
#include <new>

namespace hzio::internal_c {

namespace {

// The message of this thread's last failed call (hzio_last_error).
thread_local std::string t_last_error;

}  // namespace

hzio_status StatusOf(ErrorCode code) {
  switch (code) {  // no default: a new ErrorCode warns here until it has a status
    case ErrorCode::kInvalidArgument: return HZIO_ERR_INVALID_ARGUMENT;
    case ErrorCode::kNotFound: return HZIO_ERR_NOT_FOUND;
    case ErrorCode::kOutOfRange: return HZIO_ERR_OUT_OF_RANGE;
    case ErrorCode::kCorrupt: return HZIO_ERR_CORRUPT;
    case ErrorCode::kUnsupported: return HZIO_ERR_UNSUPPORTED;
    case ErrorCode::kIo: return HZIO_ERR_IO;
    case ErrorCode::kTooLarge: return HZIO_ERR_TOO_LARGE;
    case ErrorCode::kUnavailable: return HZIO_ERR_UNAVAILABLE;
    case ErrorCode::kChanged: return HZIO_ERR_CHANGED;
    case ErrorCode::kLocked: return HZIO_ERR_LOCKED;
    case ErrorCode::kInternal: return HZIO_ERR_INTERNAL;
  }
  return HZIO_ERR_INTERNAL;
}

hzio_status Fail(const char* function, hzio_status status, std::string_view message) {
  try {
    t_last_error.assign(function).append(": ").append(message);
  } catch (...) {
    t_last_error.clear();  // no memory for the message: the status still says what happened
  }
  return status;
}

hzio_status FailWithCurrentException(const char* function) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    return Fail(function, StatusOf(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return Fail(function, HZIO_ERR_TOO_LARGE, "out of memory");
  } catch (const std::exception& e) {
    return Fail(function, HZIO_ERR_INTERNAL, e.what());
  } catch (...) {
    return Fail(function, HZIO_ERR_INTERNAL, "unknown exception");
  }
}

void RequireNonNull(const void* p, const char* what) {
  if (p == nullptr) throw Error(ErrorCode::kInvalidArgument, std::string(what) + " is NULL");
}

std::string Text(const char* s, const char* what) {
  RequireNonNull(s, what);
  return std::string(s);
}

Box BoxOf(int dims, const int64_t* offset, const int64_t* count) {
  RequireNonNull(offset, "offset");
  RequireNonNull(count, "count");
  Box box{Point(dims), Point(dims)};
  for (int d = 0; d < dims; ++d) {
    box.p1[d] = offset[d];
    box.p2[d] = offset[d] + (count[d] > 0 && offset[d] <= std::numeric_limits<int64_t>::max() - count[d] ? count[d] : 0);
  }
  for (int d = 0; d < dims; ++d) {
    if (count[d] <= 0 || box.p2[d] == offset[d]) {
      std::string text;
      for (int k = 0; k < dims; ++k)
        text += (k ? ", " : "") + std::to_string(offset[k]) + "+" + std::to_string(count[k]);
      throw Error(ErrorCode::kInvalidArgument, "box (offset+count per axis: " + text + ") has count " +
                                                   std::to_string(count[d]) + " on axis " + std::to_string(d) +
                                                   (count[d] > 0 ? ", which overflows" : "; counts must be positive"));
    }
  }
  return box;
}

}  // namespace hzio::internal_c

extern "C" {

const char* hzio_last_error(void) { return hzio::internal_c::t_last_error.c_str(); }

const char* hzio_status_name(hzio_status status) {
  using hzio::ErrorCode;
  if (status == HZIO_OK) return "ok";
  // The statuses follow ErrorCode's order (hzio.h); StatusOf confirms the pairing.
  if (status >= HZIO_ERR_INVALID_ARGUMENT && status <= HZIO_ERR_INTERNAL) {
    const auto code = static_cast<ErrorCode>(status - HZIO_ERR_INVALID_ARGUMENT);
    if (hzio::internal_c::StatusOf(code) == status) return hzio::ErrorCodeName(code).data();  // literals
  }
  return "unknown";
}

hzio_status hzio_fail(hzio_status status, const char* message) {
  try {
    hzio::internal_c::t_last_error = message == nullptr ? "" : message;
  } catch (...) {
    hzio::internal_c::t_last_error.clear();
  }
  return status;
}

const char* hzio_version(void) { return HZIO_VERSION_STRING; }

}  // extern "C"
