#include "hzio/format/dtype.h"

#include <cctype>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

// Reads an unsigned decimal number at s[i...]; returns -1 if none.
int64_t ReadNumber(const std::string& s, size_t& i) {
  size_t start = i;
  int64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    v = v * 10 + (s[i] - '0');
    if (v > 1'000'000) return -1;
    ++i;
  }
  return i == start ? -1 : v;
}

}  // namespace

DType DType::Parse(const std::string& text) {
  std::string s;
  for (char c : ToLower(text))
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  auto fail = [&]() -> Error {
    return Error(ErrorCode::kInvalidArgument, "dtype '" + text + "' is not a valid sample type");
  };
  size_t i = 0;
  int64_t components = 1;
  if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    components = ReadNumber(s, i);
    if (components < 1 || i >= s.size() || s[i] != '*') throw fail();
    ++i;
  }
  Kind kind;
  if (s.compare(i, 4, "uint") == 0) {
    kind = Kind::kUnsigned;
    i += 4;
  } else if (s.compare(i, 3, "int") == 0) {
    kind = Kind::kSigned;
    i += 3;
  } else if (s.compare(i, 5, "float") == 0) {
    kind = Kind::kFloat;
    i += 5;
  } else {
    throw fail();
  }
  int64_t bits = ReadNumber(s, i);
  if (bits < 1 || bits > 1024) throw fail();
  if (i < s.size() && s[i] == '[') {
    ++i;
    int64_t n = ReadNumber(s, i);
    if (n < 1 || i >= s.size() || s[i] != ']') throw fail();
    ++i;
    components *= n;
  }
  if (i != s.size() || components > 4096) throw fail();
  if (kind == Kind::kFloat && bits != 32 && bits != 64) throw fail();
  if (bits == 1) kind = Kind::kSigned;  // OpenVisus: a 1-bit type is never "unsigned"
  return DType(kind, static_cast<int>(bits), static_cast<int>(components));
}

int64_t DType::BytesFor(int64_t samples) const {
  return (samples * components_ * bits_ + 7) / 8;
}

std::string DType::ToString() const {
  std::string s = kind_ == Kind::kFloat ? "float" : kind_ == Kind::kSigned ? "int" : "uint";
  s += std::to_string(bits_);
  if (components_ > 1) s += "[" + std::to_string(components_) + "]";
  return s;
}

std::string DType::ToCountedString() const {
  std::string s = ToString();
  if (components_ > 1) s.erase(s.find('['));
  return std::to_string(components_) + "*" + s;
}

std::string DType::NumpyDescr() const {
  Check(bits_ == 8 || bits_ == 16 || bits_ == 32 || bits_ == 64, ErrorCode::kUnsupported,
        "dtype " + ToString() + " has no numpy equivalent");
  const char kind = kind_ == Kind::kFloat ? 'f' : kind_ == Kind::kSigned ? 'i' : 'u';
  return std::string(bits_ == 8 ? "|" : "<") + kind + std::to_string(bits_ / 8);
}

}  // namespace hzio
