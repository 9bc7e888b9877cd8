/// Transport-neutral HTTP request and reply used by every handler, so handlers are pure functions
/// that unit tests call without sockets; the Beast session converts at the edges.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hzio::server {

struct Request {
  std::string method = "GET";
  std::string target;  // path plus "?query", as sent
  std::vector<std::pair<std::string, std::string>> headers;

  /// First header named `name` (case-insensitive), or "" when absent.
  std::string Header(std::string_view name) const;
};

struct Reply {
  int status = 200;
  std::string reason;  // "" = the standard text for the status
  std::vector<std::pair<std::string, std::string>> headers;  // names kept verbatim (idx-format.md §7.1)
  std::string body;

  void Set(std::string name, std::string value);
  /// Value of header `name` (exact spelling), or "" when absent.
  std::string Get(std::string_view name) const;
  bool Has(std::string_view name) const;
};

bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace hzio::server
