/// Dataset URLs of the mod_visus protocol (idx-format.md §7.9): `http[s]://host[:port]/path?
/// dataset=NAME[&extra]`, split into the endpoint and its parameters, and request URLs built the
/// way the OpenVisus client builds them (every byte but A-Z a-z 0-9 percent-encoded, §7.1).
#pragma once

#include <map>
#include <string>

namespace hzio::internal_remote {

struct ModVisusUrl {
  std::string endpoint;                       // "http://host:port/mod_visus"
  std::map<std::string, std::string> params;  // decoded; client-only ones removed
  /// `cached=...` was given: read through block queries and a local block cache (§7.9).
  bool cached = false;

  /// Parses a dataset URL; throws hzio::Error(kInvalidArgument) naming the URL when it is not
  /// http(s) or has no `dataset=`.
  static ModVisusUrl Parse(const std::string& url);

  const std::string& dataset() const { return params.at("dataset"); }
  /// endpoint + "?" + the parameters (these, overridden by `extra`), sorted by key.
  std::string Request(const std::map<std::string, std::string>& extra) const;
};

}  // namespace hzio::internal_remote
