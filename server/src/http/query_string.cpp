#include "http/query_string.h"

#include "hzio/util/error.h"

namespace hzio::server {

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
