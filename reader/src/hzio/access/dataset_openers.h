/// Which code opens a dataset named by a URL: a registry from URL scheme ("http", "s3", ...) to an
/// opener. Backends outside `access/` (remote/ today; HTTP and S3 stores later) register into it,
/// so `access/` never includes them (style.md layering). The built-in backends are registered
/// explicitly, on first use of the registry, by internal_access::RegisterBuiltinOpeners — one
/// function at the top of hzio::core (hzio/builtin_openers.cpp) that names them all. No static
/// initialisers: those run in no defined order and are dropped from static libraries when
/// nothing else references their object file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hzio/access/dataset.h"

namespace hzio {

using DatasetOpener = std::function<std::shared_ptr<Dataset>(const std::string& url, const OpenOptions& options)>;

class DatasetOpeners {
 public:
  /// The process-wide registry, with the built-in openers in it.
  static DatasetOpeners& Global();

  /// Registers `opener` for URLs `scheme://...` (lower case); replaces an earlier one.
  void Register(const std::string& scheme, DatasetOpener opener);
  /// The opener for `scheme`, or an empty function.
  DatasetOpener Find(const std::string& scheme) const;
  /// Registered schemes, sorted.
  std::vector<std::string> Schemes() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, DatasetOpener> openers_;
};

/// DatasetOpeners::Global().Register(scheme, opener).
void RegisterDatasetOpener(const std::string& scheme, DatasetOpener opener);

/// The scheme of a URL ("http" of "http://h/x"; lower case), or "" for a plain path.
std::string UrlScheme(const std::string& path_or_url);

namespace internal_access {
/// Registers every backend built into this hzio::core (defined in hzio/builtin_openers.cpp).
void RegisterBuiltinOpeners(DatasetOpeners& openers);
}  // namespace internal_access

}  // namespace hzio
