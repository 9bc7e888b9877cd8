// Text form of the .idx header: parse (§1.1) and write (§1.6).
#include <cctype>
#include <map>

#include "hzio/format/idx_header.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

IdxHeader ParseIdxXml(const std::string& text, const std::string& source);

namespace {

const char* const kKnownKeys[] = {"version",   "box",          "bits",         "fields",
                                  "bitsperblock", "blocksperfile", "interleave block",
                                  "interleave", "filename_template", "time", "physic_box",
                                  "logic_to_physic", "axis", "missing_blocks", "arco"};

bool IsKnownKey(const std::string& key) {
  for (const char* k : kKnownKeys)
    if (key == k) return true;
  return false;
}

std::vector<double> ParseDoubles(const std::string& text, const std::string& what) {
  std::vector<double> v;
  for (const std::string& t : SplitWhitespace(text)) v.push_back(ParseDouble(t, what));
  return v;
}

// OpenVisus converts (version) with std::stoi: blanks, a sign and digits, the rest ignored, so
// PIDX's "6.1" is 6. The value must still be a version OpenVisus knows (checked by the caller).
int ParseVersion(const std::string& text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const size_t digits = i;
  while (i < text.size() && i - digits < 9 && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  Check(i > digits, ErrorCode::kInvalidArgument, "(version): '" + text + "' does not start with an integer");
  return static_cast<int>(std::stol(text.substr(0, i)));
}

std::string JoinDoubles(const std::vector<double>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + FormatShortest(v[i]);
  return s;
}

}  // namespace

IdxHeader IdxHeader::Parse(const std::string& text, const std::string& source,
                           const std::string& idx_stem) {
  try {
    size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '<') {
      IdxHeader h = ParseIdxXml(text, source);
      h.Validate(idx_stem);
      return h;
    }
    Check(text.find('\0') == std::string::npos, ErrorCode::kInvalidArgument,
          "not a text header (contains NUL bytes)");
    // §1.1: key lines start with '(', following lines are the value, joined by a space.
    std::vector<std::pair<std::string, std::string>> entries;
    std::string key;
    bool have_key = false;
    for (std::string line : Split(text, '\n')) {
      line = Trim(line);
      if (line.empty() || line[0] == '#') continue;
      if (line[0] == '(') {
        key = line;
        have_key = true;
        entries.emplace_back(key, "");
      } else if (have_key) {
        std::string& value = entries.back().second;
        value += (value.empty() ? "" : " ") + line;
      } else {
        throw Error(ErrorCode::kInvalidArgument, "text before the first (key): '" + line + "'");
      }
    }
    std::map<std::string, std::string> values;  // last occurrence wins
    IdxHeader h;
    for (auto& [k, v] : entries) {
      Check(k.size() >= 2 && k.back() == ')', ErrorCode::kInvalidArgument, "malformed key line '" + k + "'");
      std::string name = k.substr(1, k.size() - 2);
      if (IsKnownKey(name)) {
        values[name] = Trim(v);
      } else {
        bool replaced = false;
        for (auto& m : h.metadata)
          if (m.first == name) { m.second = Trim(v); replaced = true; }
        if (!replaced) h.metadata.emplace_back(name, Trim(v));
      }
    }
    auto get = [&](const char* k) -> const std::string* {
      auto it = values.find(k);
      return it == values.end() ? nullptr : &it->second;
    };
    Check(get("version") != nullptr, ErrorCode::kInvalidArgument, "missing (version)");
    h.version = ParseVersion(*get("version"));
    if (*get("version") != std::to_string(h.version)) h.version_text = *get("version");
    Check(h.version >= 0 && h.version <= 6, ErrorCode::kInvalidArgument,
          "(version) " + std::to_string(h.version) + " is not 1..6");
    Check(get("bits") != nullptr && !get("bits")->empty(), ErrorCode::kInvalidArgument, "missing (bits)");
    h.bitmask = Bitmask::Parse(*get("bits"));
    Check(get("box") != nullptr, ErrorCode::kInvalidArgument, "missing (box)");
    h.box = Box::ParseInclusive(*get("box"), h.bitmask.dims());
    Check(get("fields") != nullptr, ErrorCode::kInvalidArgument, "missing (fields)");
    h.fields = ParseFields(*get("fields"), h.version == 0 ? 6 : h.version);
    if (auto v = get("bitsperblock")) h.bits_per_block = static_cast<int>(ParseInt64(*v, "(bitsperblock)"));
    if (auto v = get("blocksperfile")) h.blocks_per_file = ParseInt64(*v, "(blocksperfile)");
    if (auto v = get("interleave block")) h.interleave = ParseInt64(*v, "(interleave block)");
    else if (auto v2 = get("interleave")) h.interleave = ParseInt64(*v2, "(interleave)");
    if (auto v = get("filename_template")) h.filename_template = *v;
    if (auto v = get("time")) {
      h.time = TimeSpec::Parse(*v);
      h.has_time = true;
    }
    if (auto v = get("physic_box")) h.physic_box = ParseDoubles(*v, "(physic_box)");
    if (auto v = get("logic_to_physic")) h.logic_to_physic = ParseDoubles(*v, "(logic_to_physic)");
    if (auto v = get("axis")) h.axis = *v;
    if (auto v = get("missing_blocks")) h.missing_blocks = ParseInt64(*v, "(missing_blocks)") != 0;
    if (auto v = get("arco")) h.arco = ParseInt64(*v, "(arco)");
    h.Validate(idx_stem);
    return h;
  } catch (const Error& e) {
    throw Error(e.code(), source + ": bad .idx header: " + e.what());
  }
}

std::string IdxHeader::ToText() const {
  std::string s;
  auto key = [&](const std::string& k, const std::string& v) { s += "(" + k + ")\n" + v + "\n"; };
  key("version", version_text.empty() ? std::to_string(version) : version_text);
  key("box", box.ToInclusiveString());
  if (!axis.empty()) key("axis", axis);
  if (!physic_box.empty()) key("physic_box", JoinDoubles(physic_box));
  else if (!logic_to_physic.empty()) key("logic_to_physic", JoinDoubles(logic_to_physic));
  std::string fields_text;
  for (size_t i = 0; i < fields.size(); ++i)
    fields_text += (i ? "\n+ " : "") + fields[i].ToHeaderLine(version);
  key("fields", fields_text);
  key("bits", bitmask.text());
  key("bitsperblock", std::to_string(bits_per_block));
  key("blocksperfile", std::to_string(blocks_per_file));
  key("interleave block", std::to_string(interleave));
  if (!time.tmpl.empty()) key("time", time.ToHeaderValue());
  key("filename_template", filename_template);
  key("missing_blocks", missing_blocks ? "1" : "0");
  key("arco", std::to_string(arco));
  for (const auto& [k, v] : metadata) key(k, v);
  return s;
}

}  // namespace hzio
