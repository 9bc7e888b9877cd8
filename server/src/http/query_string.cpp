#include "http/query_string.h"

#include "hzio/util/error.h"

namespace hzio::server {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      throw Error(ErrorCode::kInvalidArgument,
                  "malformed percent escape '" + std::string(text.substr(i, 3)) + "' in the query string");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string PercentEncode(std::string_view text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

QueryString QueryString::ParseTarget(std::string_view target) {
  QueryString q;
  size_t qm = target.find('?');
  std::string_view path = target.substr(0, qm);
  Check(!path.empty() && path[0] == '/', ErrorCode::kInvalidArgument,
        "request target '" + std::string(target.substr(0, 200)) + "' is not an absolute path");
  q.path_ = PercentDecode(path);
  if (qm == std::string_view::npos) return q;
  std::string_view rest = target.substr(qm + 1);
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string key = PercentDecode(pair.substr(0, eq));
      std::string value = eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1));
      q.params_[key] = std::move(value);  // last wins (§7.1)
    }
    if (amp == std::string_view::npos) break;
    rest = rest.substr(amp + 1);
  }
  return q;
}

std::optional<std::string> QueryString::Get(const std::string& key) const {
  auto it = params_.find(key);
  if (it == params_.end()) return std::nullopt;
  return it->second;
}

std::string QueryString::GetOr(const std::string& key, const std::string& fallback) const {
  auto it = params_.find(key);
  return it == params_.end() ? fallback : it->second;
}

}  // namespace hzio::server
