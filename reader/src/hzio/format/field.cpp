#include "hzio/format/field.h"

#include <algorithm>
#include <cstring>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

// OpenVisus finds options by substring anywhere in the piece; the argument runs to the first ')'.
bool FindOption(const std::string& piece, const std::string& name, std::string& arg) {
  const std::string key = name + "(";
  size_t at = piece.find(key);
  if (at == std::string::npos) return false;
  size_t start = at + key.size();
  size_t end = piece.find(')', start);
  if (end == std::string::npos) end = piece.size();
  arg = Trim(piece.substr(start, end - start));
  return true;
}

std::vector<double> ParseNumberList(const std::string& text, const std::string& what) {
  std::vector<double> values;
  for (const std::string& tok : SplitWhitespace(text)) values.push_back(ParseDouble(tok, what));
  return values;
}

std::string RangeText(const std::vector<double>& v, const std::vector<double>& lo,
                      const std::vector<double>& hi, int components) {
  std::string s;
  for (int c = 0; c < components; ++c) {
    const size_t i = static_cast<size_t>(c);
    const bool known = i < lo.size() && i < hi.size() && hi[i] > lo[i];
    s += (c ? " " : "") + (known ? FormatFixed6(v[i]) : std::string("0"));
  }
  return s;
}

}  // namespace

Field Field::Parse(const std::string& piece_in, int version) {
  const std::string piece = Trim(piece_in);
  std::vector<std::string> tokens = SplitWhitespace(piece);
  Check(tokens.size() >= 2, ErrorCode::kInvalidArgument,
        "field '" + piece + "' needs a name and a dtype");
  Field f;
  f.name = tokens[0];
  f.dtype = DType::Parse(tokens[1]);
  f.counted_dtype = tokens[1].find('*') != std::string::npos;
  std::string arg;
  if (FindOption(piece, "description", arg)) f.description = arg;
  if (FindOption(piece, "default_compression", arg)) f.compression = arg;
  else if (FindOption(piece, "compression", arg)) f.compression = arg;
  else if (FindOption(piece, "compressed", arg)) f.compression = arg;
  else if (piece.find("compressed") != std::string::npos) f.compression = "zip";
  std::string layout;
  bool has_layout = FindOption(piece, "default_layout", layout) || FindOption(piece, "layout", layout);
  if (!has_layout && FindOption(piece, "format", layout)) has_layout = true;
  // §1.3 normalisation: "0" or anything containing "hz" is hz order, as is every v<6 file.
  f.hz_layout = version < 6 || layout == "0" || layout.find("hz") != std::string::npos;
  if (FindOption(piece, "default_value", arg) && !arg.empty())
    f.default_value = static_cast<int64_t>(ParseDouble(arg, "field '" + f.name + "' default_value"));
  if (FindOption(piece, "filter", arg)) f.filter = arg;
  if (FindOption(piece, "min", arg)) f.min = ParseNumberList(arg, "field '" + f.name + "' min");
  if (FindOption(piece, "max", arg)) f.max = ParseNumberList(arg, "field '" + f.name + "' max");
  const int comps = f.dtype.components();
  if (f.min.size() == 1 && comps > 1) f.min.assign(static_cast<size_t>(comps), f.min[0]);
  if (f.max.size() == 1 && comps > 1) f.max.assign(static_cast<size_t>(comps), f.max[0]);
  return f;
}

std::string Field::ToHeaderLine(int version) const {
  std::string s = name + " " + (counted_dtype ? dtype.ToCountedString() : dtype.ToString()) + " ";
  if (!compression.empty())
    s += version < 6 ? std::string("compressed ") : "default_compression(" + compression + ") ";
  s += "default_layout(" + std::string(hz_layout ? "hzorder" : "") + ") ";
  s += "default_value(" + std::to_string(default_value) + ") ";
  if (!filter.empty()) s += "filter(" + filter + ") ";
  const int comps = dtype.components();
  s += "min(" + RangeText(min, min, max, comps) + ") ";
  s += "max(" + RangeText(max, min, max, comps) + ") ";
  return s;
}

std::vector<uint8_t> Field::DefaultSample() const {
  const int64_t bytes = dtype.bits() / 8;
  std::vector<uint8_t> one(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 0);
  if (dtype.kind() == DType::Kind::kFloat && bytes == 4) {
    float v = static_cast<float>(default_value);
    std::memcpy(one.data(), &v, 4);
  } else if (dtype.kind() == DType::Kind::kFloat && bytes == 8) {
    double v = static_cast<double>(default_value);
    std::memcpy(one.data(), &v, 8);
  } else {
    uint64_t v = static_cast<uint64_t>(default_value);
    for (int64_t i = 0; i < bytes && i < 8; ++i) one[static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  }
  std::vector<uint8_t> sample;
  for (int c = 0; c < dtype.components(); ++c) sample.insert(sample.end(), one.begin(), one.end());
  return sample;
}

std::vector<Field> ParseFields(const std::string& value, int version) {
  std::vector<Field> fields;
  int depth = 0;
  std::string piece;
  for (char c : value + "+") {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') depth = depth > 0 ? depth - 1 : 0;
    if (c == '+' && depth == 0) {
      if (!Trim(piece).empty()) fields.push_back(Field::Parse(piece, version));
      piece.clear();
    } else {
      piece += c;
    }
  }
  return fields;
}

}  // namespace hzio
