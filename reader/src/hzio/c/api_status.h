/// The error boundary of the C API (hzio.h): every entry point runs its work inside Guard(),
/// which turns hzio::Error (and anything else thrown) into an hzio_status and this thread's
/// message, so no exception ever crosses into C or Fortran. Also the argument checks every entry
/// point shares (NULL pointers, strings, boxes given as offset + count).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "hzio/c/hzio.h"
#include "hzio/util/box.h"
#include "hzio/util/error.h"

namespace hzio::internal_c {

/// The status of an hzio::ErrorCode (one each, hzio.h).
hzio_status StatusOf(ErrorCode code);

/// Records "function: message" as this thread's last error and returns `status`.
hzio_status Fail(const char* function, hzio_status status, std::string_view message);

/// Maps the exception in flight to a status and a message (call only inside a catch block).
hzio_status FailWithCurrentException(const char* function) noexcept;

/// Runs `work`; returns HZIO_OK, or the status of what it threw with the message recorded.
template <class Work>
hzio_status Guard(const char* function, Work&& work) noexcept {
  try {
    work();
    return HZIO_OK;
  } catch (...) {
    return FailWithCurrentException(function);
  }
}

/// Throws kInvalidArgument "`what` is NULL" when `p` is null.
void RequireNonNull(const void* p, const char* what);

/// A getter: checks `handle` and `out` (naming them in the message), then *out = value(*handle).
template <class Handle, class Out, class Value>
hzio_status Get(const char* function, const Handle* handle, const char* handle_name, Out* out, const char* out_name,
                Value&& value) noexcept {
  return Guard(function, [&] {
    RequireNonNull(handle, handle_name);
    RequireNonNull(out, out_name);
    *out = value(*handle);
  });
}

/// A C string argument as a std::string (kInvalidArgument naming `what` when NULL).
std::string Text(const char* s, const char* what);

/// The box offset[0..dims) + count[0..dims): counts must be positive and the upper corner must
/// not overflow (kInvalidArgument naming the box otherwise).
Box BoxOf(int dims, const int64_t* offset, const int64_t* count);

}  // namespace hzio::internal_c
