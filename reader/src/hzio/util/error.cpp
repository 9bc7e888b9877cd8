#include "hzio/util/error.h"

namespace hzio {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kOutOfRange: return "out_of_range";
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kIo: return "io_error";
    case ErrorCode::kTooLarge: return "too_large";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kChanged: return "changed";
    case ErrorCode::kLocked: return "locked";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace hzio
