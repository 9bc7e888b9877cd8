// numpy memory and boxes crossing the Python boundary (binding.h).
#include <cstring>

#include "binding.h"
#include "hzio/util/error.h"

namespace hzio::python {

namespace {

// Whether a struct-module format code (numpy's buffer export) is `dtype`'s component type.
bool FormatMatches(const char* format, Py_ssize_t itemsize, const DType& dtype) {
  if (itemsize * 8 != dtype.bits()) return false;
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f = f.substr(1);
  if (f.size() != 1) return false;
  const char c = f[0];
  switch (dtype.kind()) {
    case DType::Kind::kFloat: return c == 'f' || c == 'd';
    case DType::Kind::kSigned: return std::strchr("bhilq", c) != nullptr;
    case DType::Kind::kUnsigned: return std::strchr("BHILQ", c) != nullptr;
  }
  return false;
}

}  // namespace

ArrayBuffer::ArrayBuffer(nb::handle array, const DType& dtype, int64_t bytes, bool writable, const std::string& what) {
  const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  const std::string wanted = std::string("a C-contiguous") + (writable ? " writable" : "") + " numpy array of " +
                             dtype.Scalar().ToString() + " holding " + std::to_string(bytes) + " bytes";
  if (PyObject_GetBuffer(array.ptr(), &view_, flags) != 0) {
    PyErr_Clear();
    view_ = Py_buffer{};
    throw Error(ErrorCode::kInvalidArgument, what + ": expected " + wanted + ", got " +
                                                 nb::cast<std::string>(nb::repr(nb::type_name(array.type()))) +
                                                 (writable ? " (not writable or not contiguous)" : " (not contiguous)"));
  }
  std::string problem;
  if (!FormatMatches(view_.format, view_.itemsize, dtype)) {
    problem = std::string("items of format '") + (view_.format ? view_.format : "B") + "' and " +
              std::to_string(view_.itemsize) + " bytes";
  } else if (view_.len != bytes) {
    problem = std::to_string(view_.len) + " bytes";
  }
  if (!problem.empty()) {
    PyBuffer_Release(&view_);
    throw Error(ErrorCode::kInvalidArgument, what + ": expected " + wanted + ", got " + problem);
  }
}

Point ToPoint(const std::vector<int64_t>& values, const std::string& what) {
  Check(!values.empty() && values.size() <= static_cast<size_t>(kMaxDims), ErrorCode::kInvalidArgument,
        what + ": expected 1 to " + std::to_string(kMaxDims) + " coordinates, got " + std::to_string(values.size()));
  Point p(static_cast<int>(values.size()));
  for (size_t d = 0; d < values.size(); ++d) p[static_cast<int>(d)] = values[d];
  return p;
}

Box ToBox(const PyBox& box, const std::string& what) {
  Check(box.first.size() == box.second.size(), ErrorCode::kInvalidArgument,
        what + ": the corners have " + std::to_string(box.first.size()) + " and " +
            std::to_string(box.second.size()) + " coordinates");
  return Box(ToPoint(box.first, what), ToPoint(box.second, what));
}

std::vector<int64_t> FromPoint(const Point& p) { return std::vector<int64_t>(p.v.begin(), p.v.begin() + p.dims); }

PyBox FromBox(const Box& b) { return {FromPoint(b.p1), FromPoint(b.p2)}; }

}  // namespace hzio::python
