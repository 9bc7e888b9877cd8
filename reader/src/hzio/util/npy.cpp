#include "hzio/util/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "hzio/util/error.h"

namespace hzio {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr int64_t kMaxElements = int64_t{1} << 60;

std::string SysError(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// A Python literal as it appears in a .npy header dictionary: the subset numpy writes.
struct PyValue {
  enum class Kind { kString, kBool, kNone, kInt, kTuple, kList, kDict } kind = Kind::kNone;
  std::string text;  // string value
  bool boolean = false;
  int64_t integer = 0;
  std::vector<PyValue> items;      // tuple / list elements, or dict values
  std::vector<std::string> keys;   // dict keys, parallel to items (no pair of an incomplete type)
};

// Recursive-descent parser of the header dictionary; every failure names the file and the offset.
class PyLiteralParser {
 public:
  PyLiteralParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  PyValue ParseTop() {
    PyValue v = ParseValue(0);
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after the dictionary");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw Error(ErrorCode::kCorrupt, source_ + ": malformed .npy header: " + what + " at character " +
                                         std::to_string(pos_) + " of '" + std::string(text_) + "'");
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r'))
      ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool AcceptWord(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  PyValue ParseValue(int depth) {
    if (depth > 8) Fail("nesting too deep");
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end");
    const char c = text_[pos_];
    PyValue v;
    if (c == '\'' || c == '"') {
      v.kind = PyValue::Kind::kString;
      v.text = ParseString();
    } else if (c == '{') {
      v.kind = PyValue::Kind::kDict;
      ++pos_;
      while (!Accept('}')) {
        SkipSpace();
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) Fail("expected a quoted key");
        std::string key = ParseString();
        if (!Accept(':')) Fail("expected ':' after key '" + key + "'");
        v.items.push_back(ParseValue(depth + 1));
        v.keys.push_back(std::move(key));
        if (!Accept(',')) {
          if (!Accept('}')) Fail("expected ',' or '}'");
          break;
        }
      }
    } else if (c == '(' || c == '[') {
      v.kind = c == '(' ? PyValue::Kind::kTuple : PyValue::Kind::kList;
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      while (!Accept(close)) {
        v.items.push_back(ParseValue(depth + 1));
        if (!Accept(',')) {
          if (!Accept(close)) Fail(std::string("expected ',' or '") + close + "'");
          break;
        }
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = PyValue::Kind::kInt;
      v.integer = ParseInt();
    } else if (AcceptWord("True")) {
      v.kind = PyValue::Kind::kBool;
      v.boolean = true;
    } else if (AcceptWord("False")) {
      v.kind = PyValue::Kind::kBool;
    } else if (AcceptWord("None")) {
      v.kind = PyValue::Kind::kNone;
    } else {
      Fail(std::string("unexpected character '") + c + "'");
    }
    return v;
  }

  std::string ParseString() {
    const char quote = text_[pos_++];
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      s += text_[pos_++];
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return s;
  }

  int64_t ParseInt() {
    bool negative = false;
    if (text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (v > (kMaxElements - 9) / 10) Fail("integer too large");
      v = v * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == start) Fail("expected digits");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long suffix
    return negative ? -v : v;
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

const PyValue* FindKey(const PyValue& dict, const std::string& key) {
  for (size_t i = 0; i < dict.keys.size(); ++i)
    if (dict.keys[i] == key) return &dict.items[i];
  return nullptr;
}

uint32_t ReadLittleEndian(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void WriteAll(int fd, const uint8_t* data, int64_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, static_cast<size_t>(std::min<int64_t>(size, int64_t{1} << 30)));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, SysError("cannot write", path));
    }
    data += n;
    size -= n;
  }
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace

int64_t NpyHeader::ItemBytes() const { return std::stoll(descr.substr(2)); }

int64_t NpyHeader::NumElements() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

std::string NormalizeNpyDescr(const std::string& descr, const std::string& source) {
  auto unsupported = [&](const std::string& why) {
    return Error(ErrorCode::kUnsupported, source + ": .npy dtype '" + descr + "' is not supported (" + why +
                                              "); use one of u1 u2 u4 u8 i1 i2 i4 i8 f4 f8, little-endian");
  };
  if (descr.size() != 3 || !std::strchr("<>|=", descr[0]) || descr[0] == '\0')
    throw unsupported("expected a byte order, a kind and a size such as '<f4'");
  const char order = descr[0], kind = descr[1], size = descr[2];
  if (kind == 'b' || kind == '?') throw unsupported("bool");
  if (kind == 'c') throw unsupported("complex");
  if (kind != 'u' && kind != 'i' && kind != 'f') throw unsupported("unknown kind");
  const bool ok_size = kind == 'f' ? (size == '4' || size == '8')
                                   : (size == '1' || size == '2' || size == '4' || size == '8');
  if (!ok_size) throw unsupported(kind == 'f' && size == '2' ? "float16" : "size");
  if (size == '1') return std::string("|") + kind + size;
  if (order == '>') throw unsupported("big-endian; convert with a.astype(a.dtype.newbyteorder('<'))");
  if (order == '|') throw unsupported("a multi-byte type needs a byte order");
  return std::string("<") + kind + size;
}

std::string NpyDescrToTypeName(const std::string& descr) {
  const std::string d = NormalizeNpyDescr(descr, "dtype");
  const std::string kind = d[1] == 'u' ? "uint" : d[1] == 'i' ? "int" : "float";
  return kind + std::to_string(8 * (d[2] - '0'));
}

NpyHeader ParseNpyHeader(const uint8_t* bytes, size_t size, const std::string& source) {
  auto corrupt = [&](const std::string& what) { return Error(ErrorCode::kCorrupt, source + ": " + what); };
  if (size < kMagicBytes || std::memcmp(bytes, kMagic, kMagicBytes) != 0)
    throw corrupt("not a .npy file (missing the \\x93NUMPY magic)");
  if (size < 10) throw corrupt("truncated .npy header");
  const int major = bytes[6];
  if (major < 1 || major > 3)
    throw Error(ErrorCode::kUnsupported, source + ": .npy format version " + std::to_string(major) + "." +
                                             std::to_string(bytes[7]) + " is not supported (1.0, 2.0, 3.0)");
  const size_t prefix = major == 1 ? 10 : 12;
  if (size < prefix) throw corrupt("truncated .npy header");
  const uint32_t length = ReadLittleEndian(bytes + 8, major == 1 ? 2 : 4);
  if (size < prefix + length)
    throw corrupt("truncated .npy header (declares " + std::to_string(length) + " header bytes, " +
                  std::to_string(size - prefix) + " present)");

  const std::string_view text(reinterpret_cast<const char*>(bytes + prefix), length);
  const PyValue dict = PyLiteralParser(text, source).ParseTop();
  if (dict.kind != PyValue::Kind::kDict) throw corrupt("malformed .npy header: not a dictionary");
  const PyValue* descr = FindKey(dict, "descr");
  const PyValue* fortran = FindKey(dict, "fortran_order");
  const PyValue* shape = FindKey(dict, "shape");
  if (!descr || !fortran || !shape)
    throw corrupt("malformed .npy header: needs the keys 'descr', 'fortran_order' and 'shape'");
  if (descr->kind == PyValue::Kind::kList)
    throw Error(ErrorCode::kUnsupported, source + ": structured .npy dtypes are not supported");
  if (descr->kind != PyValue::Kind::kString) throw corrupt("malformed .npy header: 'descr' is not a string");
  if (fortran->kind != PyValue::Kind::kBool)
    throw corrupt("malformed .npy header: 'fortran_order' is not True or False");
  if (shape->kind != PyValue::Kind::kTuple) throw corrupt("malformed .npy header: 'shape' is not a tuple");

  NpyHeader header;
  header.descr = NormalizeNpyDescr(descr->text, source);
  header.fortran_order = fortran->boolean;
  if (header.fortran_order)
    throw Error(ErrorCode::kUnsupported,
                source + ": .npy array is in Fortran order (fortran_order: True); hzio needs C order "
                         "(save np.ascontiguousarray(a) instead)");
  int64_t elements = 1;
  for (const PyValue& s : shape->items) {
    if (s.kind != PyValue::Kind::kInt || s.integer < 0)
      throw corrupt("malformed .npy header: shape entries must be non-negative integers");
    if (s.integer > 0 && elements > kMaxElements / s.integer)
      throw corrupt("malformed .npy header: shape " + ShapeText(header.shape) + "... is too large");
    elements *= s.integer;
    header.shape.push_back(s.integer);
  }
  header.data_offset = static_cast<int64_t>(prefix + length);
  return header;
}

std::string EncodeNpyHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  const std::string d = NormalizeNpyDescr(descr, "EncodeNpyHeader");
  std::string dict = "{'descr': '" + d + "', 'fortran_order': False, 'shape': " + ShapeText(shape) + ", }";
  int major = 1;
  size_t prefix = 10;
  // numpy aligns the data to 64 bytes; the dictionary line ends with '\n'.
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  if (total - prefix > 65535) {
    major = 2;
    prefix = 12;
    total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  }
  const size_t length = total - prefix;
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((length >> (8 * i)) & 0xff);
  out += dict;
  out.append(total - out.size() - 1, ' ');
  out += '\n';
  return out;
}

Point NpyShapeToDims(const std::vector<int64_t>& shape, int components, const std::string& source) {
  std::vector<int64_t> spatial = shape;
  if (components > 1) {
    Check(!shape.empty() && shape.back() == components, ErrorCode::kInvalidArgument,
          source + ": shape " + ShapeText(shape) + " does not end with an axis of the dtype's " +
              std::to_string(components) + " components");
    spatial.pop_back();
  }
  Check(!spatial.empty(), ErrorCode::kInvalidArgument,
        source + ": shape " + ShapeText(shape) + " has no spatial axis");
  Check(spatial.size() <= static_cast<size_t>(kMaxDims), ErrorCode::kInvalidArgument,
        source + ": shape " + ShapeText(shape) + " has more than " + std::to_string(kMaxDims) + " spatial axes");
  Point dims(static_cast<int>(spatial.size()));
  for (size_t i = 0; i < spatial.size(); ++i) {
    Check(spatial[i] > 0, ErrorCode::kInvalidArgument, source + ": shape " + ShapeText(shape) + " is empty");
    dims[static_cast<int>(spatial.size() - 1 - i)] = spatial[i];
  }
  return dims;
}

std::vector<int64_t> DimsToNpyShape(const Point& dims, int components) {
  std::vector<int64_t> shape;
  for (int d = dims.dims - 1; d >= 0; --d) shape.push_back(dims[d]);
  if (components > 1) shape.push_back(components);
  return shape;
}

// ---- NpyReader ----

NpyReader::NpyReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0)
    throw Error(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo, SysError("cannot open", path));
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw Error(ErrorCode::kIo, SysError("cannot stat", path));
    // The header is at most a few kB in practice; version 2+ allows up to 4 GiB, read what it says.
    std::vector<uint8_t> head(static_cast<size_t>(std::min<int64_t>(st.st_size, 4096)));
    ReadDataAt(head.size(), head.data(), 0);
    if (head.size() >= 12 && std::memcmp(head.data(), kMagic, kMagicBytes) == 0 && head[6] >= 2) {
      const uint64_t want = 12 + uint64_t{ReadLittleEndian(head.data() + 8, 4)};
      if (want > head.size() && static_cast<int64_t>(want) <= st.st_size) {
        head.resize(static_cast<size_t>(want));
        ReadDataAt(head.size(), head.data(), 0);
      }
    }
    header_ = ParseNpyHeader(head.data(), head.size(), path);
    const int64_t needed = header_.data_offset + header_.DataBytes();
    Check(st.st_size >= needed, ErrorCode::kCorrupt,
          path + ": truncated .npy file: shape " + ShapeText(header_.shape) + " of " + header_.descr + " needs " +
              std::to_string(header_.DataBytes()) + " data bytes, the file holds " +
              std::to_string(std::max<int64_t>(0, st.st_size - header_.data_offset)));
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

NpyReader::~NpyReader() {
  if (fd_ >= 0) ::close(fd_);
}

void NpyReader::ReadDataAt(size_t size, uint8_t* out, int64_t file_offset) const {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, out + done, std::min<size_t>(size - done, size_t{1} << 30),
                              static_cast<off_t>(file_offset + static_cast<int64_t>(done)));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, SysError("cannot read", path_));
    }
    if (n == 0) throw Error(ErrorCode::kCorrupt, path_ + ": unexpected end of file");
    done += static_cast<size_t>(n);
  }
}

void NpyReader::ReadData(int64_t offset, int64_t size, uint8_t* out) const {
  Check(offset >= 0 && size >= 0 && offset + size <= header_.DataBytes(), ErrorCode::kOutOfRange,
        path_ + ": read of bytes [" + std::to_string(offset) + ", " + std::to_string(offset + size) +
            ") outside the " + std::to_string(header_.DataBytes()) + " data bytes");
  ReadDataAt(static_cast<size_t>(size), out, header_.data_offset + offset);
}

int64_t NpyReader::SlabBytes() const {
  if (header_.shape.empty()) return header_.ItemBytes();
  int64_t n = header_.ItemBytes();
  for (size_t i = 1; i < header_.shape.size(); ++i) n *= header_.shape[i];
  return n;
}

void NpyReader::ReadSlabs(int64_t first, int64_t count, uint8_t* out) const {
  const int64_t slabs = header_.shape.empty() ? 1 : header_.shape[0];
  Check(first >= 0 && count >= 0 && first + count <= slabs, ErrorCode::kOutOfRange,
        path_ + ": slabs [" + std::to_string(first) + ", " + std::to_string(first + count) +
            ") outside the first axis of length " + std::to_string(slabs));
  ReadData(first * SlabBytes(), count * SlabBytes(), out);
}

// ---- NpyWriter ----

NpyWriter::NpyWriter(std::string path, const std::string& descr, const std::vector<int64_t>& shape)
    : path_(std::move(path)) {
  const std::string header = EncodeNpyHeader(descr, shape);
  expected_ = std::stoll(NormalizeNpyDescr(descr, path_).substr(2));
  for (int64_t s : shape) expected_ *= s;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(ErrorCode::kIo, SysError("cannot create", path_));
  try {
    WriteAll(fd_, reinterpret_cast<const uint8_t*>(header.data()), static_cast<int64_t>(header.size()), path_);
  } catch (...) {
    ::close(fd_);
    ::unlink(path_.c_str());
    throw;
  }
}

NpyWriter::~NpyWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(path_.c_str());  // never leave a file that looks complete but is not
  }
}

void NpyWriter::Write(const uint8_t* data, int64_t size) {
  Check(fd_ >= 0, ErrorCode::kInternal, path_ + ": write after Finish()");
  Check(written_ + size <= expected_, ErrorCode::kInvalidArgument,
        path_ + ": more data than the declared shape holds");
  WriteAll(fd_, data, size, path_);
  written_ += size;
}

void NpyWriter::Finish() {
  Check(fd_ >= 0, ErrorCode::kInternal, path_ + ": Finish() called twice");
  Check(written_ == expected_, ErrorCode::kInvalidArgument,
        path_ + ": " + std::to_string(written_) + " data bytes written, the shape needs " +
            std::to_string(expected_));
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) {
    ::unlink(path_.c_str());
    throw Error(ErrorCode::kIo, SysError("cannot close", path_));
  }
}

void WriteNpyFile(const std::string& path, const std::string& descr, const std::vector<int64_t>& shape,
                  const uint8_t* data) {
  NpyWriter writer(path, descr, shape);
  int64_t bytes = std::stoll(NormalizeNpyDescr(descr, path).substr(2));
  for (int64_t s : shape) bytes *= s;
  writer.Write(data, bytes);
  writer.Finish();
}

}  // namespace hzio
