/// A dense row-major array of samples (x fastest, components contiguous) with its dtype and shape:
/// what a box query returns and what a writer accepts.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "hzio/format/dtype.h"
#include "hzio/util/box.h"

namespace hzio {

class Array {
 public:
  Array() = default;
  /// Allocates without initialising (callers fill every sample); `dims` are x-first counts.
  Array(DType dtype, Point dims);
  /// Wraps caller-owned memory of at least ByteSize() bytes (no copy, no ownership).
  static Array View(DType dtype, Point dims, uint8_t* data);

  const DType& dtype() const { return dtype_; }
  const Point& dims() const { return dims_; }
  int64_t NumSamples() const { return dims_.Product(); }
  int64_t ByteSize() const { return dtype_.BytesFor(NumSamples()); }
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  /// numpy shape: slowest axis first, then a component axis when components > 1.
  std::vector<int64_t> NumpyShape() const;

 private:
  DType dtype_;
  Point dims_;
  std::shared_ptr<const void> storage_;  // owns data_ (null for views)
  uint8_t* data_ = nullptr;
};

}  // namespace hzio
