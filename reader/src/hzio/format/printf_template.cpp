#include "hzio/format/printf_template.h"

#include <cctype>
#include <cstdio>

#include "hzio/util/error.h"

namespace hzio {

namespace {

constexpr size_t kNoConversion = std::string::npos;

// Index of the conversion letter of the one conversion, or kNoConversion; throws on anything else.
size_t FindConversion(const std::string& tmpl, const std::string& what) {
  size_t found = kNoConversion;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '%') continue;
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '%') { ++i; continue; }
    size_t j = i + 1;
    while (j < tmpl.size() && (tmpl[j] == '0' || tmpl[j] == '-')) ++j;
    const size_t width_from = j;
    while (j < tmpl.size() && std::isdigit(static_cast<unsigned char>(tmpl[j]))) ++j;
    Check(j - width_from <= 2, ErrorCode::kInvalidArgument,
          what + " '" + tmpl + "': a field width of more than two digits");
    Check(j < tmpl.size() && (tmpl[j] == 'd' || tmpl[j] == 'i' || tmpl[j] == 'x' || tmpl[j] == 'X'),
          ErrorCode::kInvalidArgument, what + " '" + tmpl + "' must use one integer conversion (%d, %i, %x or %X)");
    Check(found == kNoConversion, ErrorCode::kInvalidArgument, what + " '" + tmpl + "' has more than one conversion");
    found = j;
    i = j;
  }
  return found;
}

}  // namespace

void CheckIntegerTemplate(const std::string& tmpl, const std::string& what) { (void)FindConversion(tmpl, what); }

std::string FormatIntegerTemplate(const std::string& tmpl, int64_t value) {
  const size_t conversion = FindConversion(tmpl, "template");
  const bool hex = conversion != kNoConversion && (tmpl[conversion] == 'x' || tmpl[conversion] == 'X');
  const auto print = [&](char* out, size_t size) {
    return hex ? std::snprintf(out, size, tmpl.c_str(), static_cast<unsigned>(value))
               : std::snprintf(out, size, tmpl.c_str(), static_cast<int>(value));
  };
  std::string text(static_cast<size_t>(print(nullptr, 0)), '\0');
  print(text.data(), text.size() + 1);
  return text;
}

}  // namespace hzio
