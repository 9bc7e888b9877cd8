/// Request targets split into a path and parameters the way mod_visus reads them
/// (idx-format.md §7.1): `%XX` is decoded, `+` is not a space, a key without `=` has an empty
/// value, and the last of repeated keys wins.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "hzio/util/percent_encoding.h"

namespace hzio::server {

class QueryString {
 public:
  /// Splits `target` ("/path?a=1&b=2"); throws hzio::Error(kInvalidArgument) for a malformed
  /// percent escape or a path that is not absolute.
  static QueryString ParseTarget(std::string_view target);

  const std::string& path() const { return path_; }
  bool Has(const std::string& key) const { return params_.count(key) != 0; }
  /// The value of `key`, or nullopt when absent.
  std::optional<std::string> Get(const std::string& key) const;
  /// The value of `key`, or `fallback` when absent.
  std::string GetOr(const std::string& key, const std::string& fallback) const;
  const std::map<std::string, std::string>& params() const { return params_; }

 private:
  std::string path_;
  std::map<std::string, std::string> params_;
};

// Percent-encoding is shared with the remote client: hzio/util/percent_encoding.h.
using hzio::PercentDecode;
using hzio::PercentEncode;

}  // namespace hzio::server
