#include "http/message.h"

#include <cctype>

namespace hzio::server {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string Request::Header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (EqualsIgnoreCase(k, name)) return v;
  return {};
}

void Reply::Set(std::string name, std::string value) {
  for (auto& [k, v] : headers)
    if (k == name) {
      v = std::move(value);
      return;
    }
  headers.emplace_back(std::move(name), std::move(value));
}

std::string Reply::Get(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return {};
}

bool Reply::Has(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return true;
  return false;
}

}  // namespace hzio::server
