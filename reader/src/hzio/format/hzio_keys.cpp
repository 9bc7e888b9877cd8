#include "hzio/format/hzio_keys.h"

#include <algorithm>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

std::optional<std::string> MetadataValue(const IdxHeader& header, const std::string& key) {
  for (const auto& [k, v] : header.metadata)
    if (k == key) return v;
  return std::nullopt;
}

void SetMetadataValue(IdxHeader& header, const std::string& key, const std::optional<std::string>& value) {
  auto& m = header.metadata;
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& kv) { return kv.first == key; });
  if (!value) {
    if (it != m.end()) m.erase(it);
  } else if (it != m.end()) {
    it->second = *value;
  } else {
    m.emplace_back(key, *value);
  }
}

int64_t Generation(const IdxHeader& header) {
  const std::optional<std::string> v = MetadataValue(header, kGenerationKey);
  if (!v) return 1;
  const int64_t n = ParseInt64(Trim(*v), "(hzio generation)");
  Check(n >= 1, ErrorCode::kInvalidArgument, "(hzio generation) " + *v + " is not >= 1");
  return n;
}

void SetGeneration(IdxHeader& header, int64_t n) {
  Check(n >= 1, ErrorCode::kInternal, "generation " + std::to_string(n) + " is not >= 1");
  SetMetadataValue(header, kGenerationKey, n == 1 ? std::nullopt : std::optional<std::string>(std::to_string(n)));
}

std::string FormatTimeList(const std::vector<int64_t>& t) {
  std::string s;
  for (size_t i = 0; i < t.size();) {
    size_t j = i;
    while (j + 1 < t.size() && t[j + 1] == t[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(t[i]) + (j > i ? ":" + std::to_string(t[j]) : "");
    i = j + 1;
  }
  return s;
}

std::optional<WrittenParts> WrittenParts::Of(const IdxHeader& header) {
  const std::optional<std::string> v = MetadataValue(header, kWrittenKey);
  if (!v) return std::nullopt;
  return Parse(*v);
}

WrittenParts WrittenParts::Parse(const std::string& text) {
  WrittenParts w;
  for (const std::string& item : SplitWhitespace(text)) {
    const size_t at = item.rfind('@');
    Check(at != std::string::npos && at > 0, ErrorCode::kInvalidArgument,
          "(hzio written) item '" + item + "' is not NAME@TIMES");
    std::set<int64_t>& times = w.parts_[item.substr(0, at)];
    const std::string list = item.substr(at + 1);
    if (list.empty()) continue;
    for (const std::string& range : Split(list, ',')) {
      // "a:b" with either end possibly negative ("-3:-1"): the separator is the ':'.
      const size_t colon = range.find(':');
      const int64_t from = ParseInt64(range.substr(0, colon), "(hzio written)");
      const int64_t to = colon == std::string::npos ? from : ParseInt64(range.substr(colon + 1), "(hzio written)");
      Check(to >= from && to - from <= 10000000, ErrorCode::kInvalidArgument,
            "(hzio written) range '" + range + "' is reversed or too long");
      for (int64_t t = from; t <= to; ++t) times.insert(t);
    }
  }
  return w;
}

bool WrittenParts::Contains(const std::string& field, int64_t time) const {
  auto it = parts_.find(field);
  return it != parts_.end() && it->second.count(time) != 0;
}

void WrittenParts::Add(const std::string& field, int64_t time) { parts_[field].insert(time); }

void WrittenParts::AddAll(const WrittenParts& other) {
  for (const auto& [field, times] : other.parts_) parts_[field].insert(times.begin(), times.end());
}

std::string WrittenParts::ToText() const {
  std::string s;
  for (const auto& [field, times] : parts_) {
    if (times.empty()) continue;
    s += (s.empty() ? "" : " ") + field + "@" + FormatTimeList(std::vector<int64_t>(times.begin(), times.end()));
  }
  return s;
}

void WrittenParts::StoreInto(IdxHeader& header) const { SetMetadataValue(header, kWrittenKey, ToText()); }

std::vector<UnwrittenPart> NeverWrittenParts(const IdxHeader& header, size_t limit) {
  const std::optional<WrittenParts> written = WrittenParts::Of(header);
  if (!written || header.time.any) return {};
  const std::vector<int64_t> times = header.time.List(limit);
  std::vector<UnwrittenPart> out;
  for (const Field& f : header.fields) {
    UnwrittenPart p{f.name, "", {}};
    for (int64_t t : times)
      if (!written->Contains(f.name, t)) p.list.push_back(t);
    if (p.list.empty()) continue;
    std::sort(p.list.begin(), p.list.end());
    p.times = FormatTimeList(p.list);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace hzio
