/// The printf templates headers carry — `(time)`'s and a version 1–4 `(filename_template)` —
/// validated before they reach printf: a header is input, and "%s" or "%n" in it would be a crash.
#pragma once

#include <cstdint>
#include <string>

namespace hzio {

/// Throws kInvalidArgument naming `what` unless `tmpl` holds at most one conversion, and that
/// one of d, i, x or X with only '0'/'-' flags and a width below 100; "%%" is a literal '%'.
void CheckIntegerTemplate(const std::string& tmpl, const std::string& what);

/// printf(tmpl, value) for a template that passed CheckIntegerTemplate: the value is passed as an
/// int to d/i and as an unsigned to x/X, as OpenVisus's sprintf sees it.
std::string FormatIntegerTemplate(const std::string& tmpl, int64_t value);

}  // namespace hzio
