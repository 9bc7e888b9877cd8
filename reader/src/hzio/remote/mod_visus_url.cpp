#include "hzio/remote/mod_visus_url.h"

#include "hzio/util/error.h"
#include "hzio/util/percent_encoding.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {


ModVisusUrl ModVisusUrl::Parse(const std::string& url) {
  Check(StartsWith(url, "http://") || StartsWith(url, "https://"), ErrorCode::kInvalidArgument,
        url + ": not an http:// or https:// URL");
  ModVisusUrl u;
  size_t q = url.find('?');
  u.endpoint = url.substr(0, q);
  if (u.endpoint.find('/', url.find("//") + 2) == std::string::npos) u.endpoint += "/mod_visus";
  if (q != std::string::npos) {
    for (const std::string& pair : Split(url.substr(q + 1), '&')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      u.params[PercentDecode(pair.substr(0, eq))] = eq == std::string::npos ? "" : PercentDecode(pair.substr(eq + 1));
    }
  }
  if (auto it = u.params.find("cached"); it != u.params.end())
    u.cached = !it->second.empty() && it->second != "0" && ToLower(it->second) != "false";
  // Parameters that steer only the OpenVisus client's local cache (§7.9).
  for (const char* local : {"cached", "cache_dir", "cache_compression", "action"}) u.params.erase(local);
  Check(u.params.count("dataset") && !u.params["dataset"].empty(), ErrorCode::kInvalidArgument,
        url + ": the URL has no dataset= parameter (expected http://HOST:PORT/mod_visus?dataset=NAME)");
  return u;
}

std::string ModVisusUrl::Request(const std::map<std::string, std::string>& extra) const {
  std::map<std::string, std::string> all = params;
  for (const auto& [k, v] : extra) all[k] = v;
  std::string out = endpoint;
  char sep = '?';
  for (const auto& [k, v] : all) {
    out += sep + PercentEncode(k) + "=" + PercentEncode(v);
    sep = '&';
  }
  return out;
}

}  // namespace hzio::internal_remote
