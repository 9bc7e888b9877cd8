#include "hzio/util/strings.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "hzio/util/error.h"

namespace hzio {

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> SplitWhitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

std::string ToLower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

int64_t ParseInt64(std::string_view s, std::string_view what) {
  std::string t = Trim(s);
  int64_t v = 0;
  const char* begin = t.data();
  if (!t.empty() && t[0] == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + ": '" + std::string(s) + "' is not an integer");
  return v;
}

double ParseDouble(std::string_view s, std::string_view what) {
  std::string t = Trim(s);
  char* end = nullptr;
  double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size())
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + ": '" + std::string(s) + "' is not a number");
  return v;
}

int64_t ParseByteSize(std::string_view text, std::string_view what) {
  std::string s = ToLower(Trim(text));
  if (!s.empty() && s.back() == 'b') s.pop_back();
  int shift = 0;
  if (const size_t unit = s.empty() ? std::string::npos : std::string("kmgt").find(s.back()); unit != std::string::npos) {
    shift = 10 * (1 + static_cast<int>(unit));
    s.pop_back();
  }
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  Check(!s.empty() && ec == std::errc() && end == s.data() + s.size() && n > 0 && n < (int64_t{1} << (62 - shift)),
        ErrorCode::kInvalidArgument,
        std::string(what) + ": '" + std::string(text) + "' is not a size (such as 4096, 512k, 64m or 20g)");
  return n << shift;
}

std::string FormatBytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[u]);
  return buf;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string FormatFixed6(double v) {
  // "%f" spells every integer digit: 1e308 needs 316 characters, so size the text by the count.
  const int n = std::snprintf(nullptr, 0, "%f", v);
  std::string s(static_cast<size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, "%f", v);
  return s;
}

std::string FormatShortest(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, ptr);
}

}  // namespace hzio
