#include "hzio/access/dataset_openers.h"

#include <cctype>

namespace hzio {

DatasetOpeners& DatasetOpeners::Global() {
  // Built on first use (thread-safe), never destroyed: datasets may be opened from other static
  // destructors' threads during shutdown.
  static DatasetOpeners* const global = [] {
    auto* openers = new DatasetOpeners;
    internal_access::RegisterBuiltinOpeners(*openers);
    return openers;
  }();
  return *global;
}

void DatasetOpeners::Register(const std::string& scheme, DatasetOpener opener) {
  std::lock_guard<std::mutex> lock(mu_);
  openers_[scheme] = std::move(opener);
}

DatasetOpener DatasetOpeners::Find(const std::string& scheme) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = openers_.find(scheme);
  return it == openers_.end() ? DatasetOpener{} : it->second;
}

std::vector<std::string> DatasetOpeners::Schemes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [scheme, opener] : openers_) out.push_back(scheme);
  return out;
}

void RegisterDatasetOpener(const std::string& scheme, DatasetOpener opener) {
  DatasetOpeners::Global().Register(scheme, std::move(opener));
}

std::string UrlScheme(const std::string& s) {
  // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" — followed by "//" here, so that a
  // file named "a:b" stays a path.
  const size_t colon = s.find("://");
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(s[0]))) return "";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return "";
    scheme += static_cast<char>(std::tolower(c));
  }
  return scheme;
}

}  // namespace hzio
