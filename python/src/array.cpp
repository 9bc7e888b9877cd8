// numpy memory and boxes crossing the Python boundary (binding.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "binding.h"
#include "hzio/util/error.h"
#include "hzio/util/large_allocation.h"

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

void BindMemory(nb::module_& m) {
  m.def(
      "aligned_bytes",
      [](size_t bytes) {
        // Where the result goes decides how fast it is placed: numpy's own large arrays start
        // 16 bytes into a page (malloc's chunk header), so each row of a result shares its
        // first and last cache lines with its neighbours, and those lines cannot be written by
        // streaming stores (util/stream_copy.h). 512^3 float32 at full resolution (rows of 128
        // and 256 bytes) read up to 1.3x slower into such an array than into this memory, which
        // is what the C++ library's callers read into: 2 MiB-aligned, advised as huge pages.
        // Checked commit: a result the machine cannot hold is TooLargeError here, as numpy's
        // MemoryError would be, not the process killed while the read fills it.
        auto memory = std::make_unique<LargeAllocation>(std::max<size_t>(bytes, 1), LargeAllocation::Pages::kHuge,
                                                        LargeAllocation::Commit::kChecked);
        uint8_t* data = memory->data();
        nb::capsule owner(memory.get(), [](void* p) noexcept { delete static_cast<LargeAllocation*>(p); });
        memory.release();
        const size_t shape[1] = {bytes};
        return nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(data, 1, shape, owner);
      },
      nb::arg("bytes"),
      "A new uninitialised writable uint8 numpy array of `bytes` bytes in memory aligned to 2 MiB and "
      "advised as transparent huge pages (hzio::LargeAllocation; heap memory below 1 MiB), freed with "
      "the last array viewing it.");
}

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
