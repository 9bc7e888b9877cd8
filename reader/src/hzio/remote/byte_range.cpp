#include "hzio/remote/byte_range.h"

#include <charconv>

#include "hzio/util/strings.h"

namespace hzio::internal_remote {

namespace {

std::optional<uint64_t> ParseU64(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<ContentRange> ParseContentRange(std::string_view value) {
  const std::string v = Trim(value);
  if (!StartsWith(v, "bytes ")) return std::nullopt;
  const size_t dash = v.find('-'), slash = v.find('/');
  if (dash == std::string::npos || slash == std::string::npos || dash > slash) return std::nullopt;
  const auto first = ParseU64(std::string_view(v).substr(6, dash - 6));
  const auto last = ParseU64(std::string_view(v).substr(dash + 1, slash - dash - 1));
  if (!first || !last || *last < *first) return std::nullopt;
  ContentRange r{*first, *last, std::nullopt};
  const std::string_view total = std::string_view(v).substr(slash + 1);
  if (total != "*") {
    r.total = ParseU64(total);
    if (!r.total || *r.total <= *last) return std::nullopt;
  }
  return r;
}

std::optional<uint64_t> ObjectSize(const HttpResponse& r) {
  if (r.status == 206) {
    const auto range = ParseContentRange(r.Header("content-range"));
    return range ? range->total : std::nullopt;
  }
  if (r.status == 200) return r.body.size();
  return std::nullopt;
}

std::optional<std::string_view> RangeBytes(const HttpResponse& r, uint64_t offset, uint64_t length) {
  uint64_t start = 0;  // object offset of body[0]
  if (r.status == 206) {
    const auto range = ParseContentRange(r.Header("content-range"));
    if (!range || range->last - range->first + 1 != r.body.size()) return std::nullopt;
    start = range->first;
  } else if (r.status != 200) {
    return std::nullopt;
  }
  if (offset < start || offset - start > r.body.size() || length > r.body.size() - (offset - start)) return std::nullopt;
  return std::string_view(r.body).substr(static_cast<size_t>(offset - start), static_cast<size_t>(length));
}

std::string ObjectValidator(const HttpResponse& r) {
  std::string v;
  if (!r.Header("etag").empty()) v = "etag:" + r.Header("etag");
  if (!r.Header("last-modified").empty()) v += (v.empty() ? "" : ";") + std::string("modified:") + r.Header("last-modified");
  return v;
}

std::string ValidatorPart(const std::string& validator, const std::string& kind) {
  const std::string tag = kind + ":";
  size_t at = validator.rfind(tag, 0) == 0 ? 0 : validator.find(";" + tag);
  if (at == std::string::npos) return "";
  if (at != 0) ++at;
  const size_t end = kind == "etag" ? validator.find(";modified:", at) : std::string::npos;
  return validator.substr(at + tag.size(), end == std::string::npos ? std::string::npos : end - at - tag.size());
}

}  // namespace hzio::internal_remote
