#include "hzio/format/arco_paths.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

std::string ArcoTimeName(int64_t time) {
  std::string s = std::to_string(time);
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }),
          s.end());
  return s;
}

std::string ArcoFieldName(const std::string& field_name) {
  std::string s = field_name;
  s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
          s.end());
  return s;
}

std::string ArcoPartName(int64_t time, const std::string& field_name) {
  return ArcoTimeName(time) + "/" + ArcoFieldName(field_name);
}

std::string ArcoBlockName(uint64_t block) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(block));
  std::string s;
  s.reserve(23);
  for (int g = 0; g < 4; ++g) {
    if (g) s += '/';
    s.append(hex + 4 * g, 4);
  }
  return s + ".bin";
}

std::string ArcoRoot(const std::string& idx_path_or_url) {
  std::string s = idx_path_or_url.substr(0, idx_path_or_url.find('?'));
  const size_t slash = s.rfind('/');
  const size_t dot = s.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)) s.resize(dot);
  return s;
}

std::string ArcoBlockPath(const std::string& root, int64_t time, const std::string& field_name, uint64_t block) {
  return root + "/" + ArcoPartName(time, field_name) + "/" + ArcoBlockName(block);
}

int64_t MaxFieldBytes(const IdxHeader& header) {
  int64_t bytes = 1;
  for (const Field& f : header.fields) bytes = std::max(bytes, f.dtype.BytesFor(1));
  return bytes;
}

int64_t ParseByteSize(const std::string& text, const std::string& what) {
  const std::string t = ToLower(Trim(text));
  size_t unit_at = 0;
  while (unit_at < t.size() && (std::isdigit(static_cast<unsigned char>(t[unit_at])) || t[unit_at] == '.')) ++unit_at;
  const std::string number = t.substr(0, unit_at), unit = Trim(t.substr(unit_at));
  double multiply = 0;
  if (unit.empty() || unit == "b") multiply = 1;
  else if (unit == "kb" || unit == "k" || unit == "kib") multiply = 1024.0;
  else if (unit == "mb" || unit == "m" || unit == "mib") multiply = 1024.0 * 1024;
  else if (unit == "gb" || unit == "g" || unit == "gib") multiply = 1024.0 * 1024 * 1024;
  double value = 0;
  bool ok = multiply > 0 && !number.empty();
  if (ok) {
    try {
      value = ParseDouble(number, what);
    } catch (const Error&) {
      ok = false;
    }
  }
  const double bytes = std::floor(value * multiply);
  Check(ok && bytes >= 1 && bytes < 9.0e18, ErrorCode::kInvalidArgument,
        what + " expects a size in bytes such as 1mb, 512kb or 1048576, got '" + text + "'");
  return static_cast<int64_t>(bytes);
}

}  // namespace hzio
