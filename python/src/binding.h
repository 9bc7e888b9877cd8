/// The `_hzio` extension module: a thin layer over hzio::core's public API (hzio/access/dataset.h,
/// dataset_writer.h, dataset_extend.h, format/new_header.h). Everything a user sees (keywords,
/// OpenVisus compatibility, slicing, xarray) is the pure-Python package around it; this layer only
/// converts types, releases the GIL around I/O and reads/writes numpy memory in place.
/// One file per concept: errors, array (numpy memory and boxes), dataset (open + metadata), read,
/// write.
#pragma once

#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hzio/access/dataset.h"
#include "hzio/format/dtype.h"
#include "hzio/format/idx_header.h"
#include "hzio/util/box.h"

namespace hzio::python {

namespace nb = nanobind;

void BindErrors(nb::module_& m);
/// Binds Dataset and `open`; returns the class so that BindRead adds the read methods to it.
nb::class_<Dataset> BindDataset(nb::module_& m);
void BindRead(nb::module_& m, nb::class_<Dataset>& dataset);
void BindWrite(nb::module_& m);
/// Binds `aligned_bytes`: memory for results as the library reads fastest into (array.cpp).
void BindMemory(nb::module_& m);

/// A header as the dict the Python Dataset reads its attributes from.
nb::dict HeaderInfo(const IdxHeader& header);

/// A box as Python passes it: (p1, p2), x first, exclusive upper corner.
using PyBox = std::pair<std::vector<int64_t>, std::vector<int64_t>>;

/// x-first coordinates -> Point; kInvalidArgument naming `what` beyond kMaxDims axes.
Point ToPoint(const std::vector<int64_t>& values, const std::string& what);
Box ToBox(const PyBox& box, const std::string& what);
std::vector<int64_t> FromPoint(const Point& p);
PyBox FromBox(const Box& b);

/// The memory of a numpy array (any buffer-protocol object) read into or written from in place:
/// C-contiguous, of `dtype`'s component type, exactly `bytes` bytes, writable when asked.
/// Anything else is kInvalidArgument naming `what`. Holds the buffer (the array cannot be resized
/// meanwhile) until destroyed, which must happen with the GIL held.
class ArrayBuffer {
 public:
  ArrayBuffer(nb::handle array, const DType& dtype, int64_t bytes, bool writable, const std::string& what);
  ~ArrayBuffer() { PyBuffer_Release(&view_); }
  ArrayBuffer(const ArrayBuffer&) = delete;
  ArrayBuffer& operator=(const ArrayBuffer&) = delete;
  uint8_t* data() const { return static_cast<uint8_t*>(view_.buf); }

 private:
  Py_buffer view_{};
};

}  // namespace hzio::python
