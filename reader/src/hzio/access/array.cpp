#include "hzio/access/array.h"

#include <algorithm>

#include "hzio/util/error.h"
#include "hzio/util/large_allocation.h"

namespace hzio {

Array::Array(DType dtype, Point dims) : dtype_(dtype), dims_(dims) {
  for (int d = 0; d < dims.dims; ++d)
    Check(dims[d] >= 0, ErrorCode::kInvalidArgument, "negative array extent");
  const int64_t bytes = ByteSize();
  Check(bytes >= 0 && bytes < (int64_t{1} << 46), ErrorCode::kTooLarge,
        "array of " + std::to_string(bytes) + " bytes is too large");
  // Large results on huge pages (util/large_allocation.h): filled once, far faster to fault in
  // and walk than 4 KiB pages.
  auto storage = std::make_shared<LargeAllocation>(static_cast<size_t>(std::max<int64_t>(bytes, 1)));
  data_ = storage->data();
  storage_ = std::move(storage);
}

Array Array::View(DType dtype, Point dims, uint8_t* data) {
  Array a;
  a.dtype_ = dtype;
  a.dims_ = dims;
  a.data_ = data;
  return a;
}

std::vector<int64_t> Array::NumpyShape() const {
  std::vector<int64_t> shape;
  for (int d = dims_.dims - 1; d >= 0; --d) shape.push_back(dims_[d]);
  if (dtype_.components() > 1) shape.push_back(dtype_.components());
  return shape;
}

}  // namespace hzio
