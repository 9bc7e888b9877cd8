#include "hzio/remote/mod_visus_url.h"

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UrlEncode(const std::string& text) {
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

std::string UrlDecode(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && Hex(text[i + 1]) >= 0 && Hex(text[i + 2]) >= 0) {
      out += static_cast<char>(Hex(text[i + 1]) * 16 + Hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

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
      u.params[UrlDecode(pair.substr(0, eq))] = eq == std::string::npos ? "" : UrlDecode(pair.substr(eq + 1));
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
    out += sep + UrlEncode(k) + "=" + UrlEncode(v);
    sep = '&';
  }
  return out;
}

}  // namespace hzio::internal_remote
