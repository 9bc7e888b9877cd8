#include "volume_image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>

namespace hzio::viewer {
namespace {

template <typename T>
void ToFloat(const uint8_t* src, int64_t samples, int components, float* out) {
  for (int64_t i = 0; i < samples; ++i) {
    if (components == 1) {
      T v;
      std::memcpy(&v, src + i * sizeof(T), sizeof(T));
      out[i] = static_cast<float>(v);
    } else {
      double sum = 0;
      for (int c = 0; c < components; ++c) {
        T v;
        std::memcpy(&v, src + (i * components + c) * sizeof(T), sizeof(T));
        sum += static_cast<double>(v) * static_cast<double>(v);
      }
      out[i] = static_cast<float>(std::sqrt(sum));
    }
  }
}

void ConvertToFloat(const Array& a, float* out) {
  const DType& t = a.dtype();
  const int64_t n = a.NumSamples();
  const int c = t.components();
  const uint8_t* p = a.data();
  using K = DType::Kind;
  switch (t.kind()) {
    case K::kFloat:
      if (t.bits() == 32) return ToFloat<float>(p, n, c, out);
      if (t.bits() == 64) return ToFloat<double>(p, n, c, out);
      break;
    case K::kUnsigned:
      if (t.bits() == 8) return ToFloat<uint8_t>(p, n, c, out);
      if (t.bits() == 16) return ToFloat<uint16_t>(p, n, c, out);
      if (t.bits() == 32) return ToFloat<uint32_t>(p, n, c, out);
      if (t.bits() == 64) return ToFloat<uint64_t>(p, n, c, out);
      break;
    case K::kSigned:
      if (t.bits() == 8) return ToFloat<int8_t>(p, n, c, out);
      if (t.bits() == 16) return ToFloat<int16_t>(p, n, c, out);
      if (t.bits() == 32) return ToFloat<int32_t>(p, n, c, out);
      if (t.bits() == 64) return ToFloat<int64_t>(p, n, c, out);
      break;
  }
  throw Error(ErrorCode::kUnsupported, "hzio-viewer: cannot display dtype " + t.ToString());
}

}  // namespace

std::array<double, 6> PhysicBounds(const IdxHeader& header) {
  const std::vector<double> p = header.PhysicBoxOrLogic();
  std::array<double, 6> b{0, 0, 0, 0, 0, 0};
  for (int d = 0; d < std::min(header.dims(), 3); ++d) {
    b[2 * d] = p[2 * d];
    b[2 * d + 1] = p[2 * d + 1];
  }
  return b;
}

std::array<double, 3> FullResolutionSpacing(const IdxHeader& header) {
  const auto b = PhysicBounds(header);
  std::array<double, 3> s{1, 1, 1};
  for (int d = 0; d < std::min(header.dims(), 3); ++d) {
    const double samples = static_cast<double>(header.box.p2[d] - header.box.p1[d]);
    s[d] = (b[2 * d + 1] - b[2 * d]) / samples;
  }
  return s;
}

ImageGeometry GeometryFor(const IdxHeader& header, const Grid& grid) {
  const auto bounds = PhysicBounds(header);
  const auto unit = FullResolutionSpacing(header);
  ImageGeometry g;
  for (int d = 0; d < std::min(header.dims(), 3); ++d) {
    g.dims[d] = static_cast<int>(grid.count[d]);
    const double logic = static_cast<double>(grid.origin[d] - header.box.p1[d]) + 0.5;
    g.origin[d] = bounds[2 * d] + logic * unit[d];
    g.spacing[d] = static_cast<double>(grid.stride[d]) * unit[d];
  }
  return g;
}

bool IsColorImage(const IdxHeader& header, const DType& dtype) {
  return header.dims() == 2 && dtype.kind() == DType::Kind::kUnsigned && dtype.bits() == 8 &&
         (dtype.components() == 3 || dtype.components() == 4);
}

vtkSmartPointer<vtkImageData> MakeImage(const IdxHeader& header, const BoxResult& result) {
  const ImageGeometry g = GeometryFor(header, result.grid);
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(g.dims[0], g.dims[1], g.dims[2]);
  image->SetOrigin(g.origin.data());
  image->SetSpacing(g.spacing.data());
  const int64_t n = result.data.NumSamples();
  if (IsColorImage(header, result.data.dtype())) {
    auto colors = vtkSmartPointer<vtkUnsignedCharArray>::New();
    const int c = result.data.dtype().components();
    colors->SetNumberOfComponents(c);
    colors->SetNumberOfTuples(n);
    std::memcpy(colors->GetPointer(0), result.data.data(), static_cast<size_t>(n * c));
    colors->SetName("colors");
    image->GetPointData()->SetScalars(colors);
  } else {
    auto values = vtkSmartPointer<vtkFloatArray>::New();
    values->SetNumberOfComponents(1);
    values->SetNumberOfTuples(n);
    ConvertToFloat(result.data, values->GetPointer(0));
    values->SetName("values");
    image->GetPointData()->SetScalars(values);
  }
  return image;
}

std::array<double, 2> ValueRange(vtkImageData* image) {
  vtkDataArray* a = image ? image->GetPointData()->GetScalars() : nullptr;
  if (!a || a->GetNumberOfTuples() == 0) return {0, 1};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const vtkIdType n = a->GetNumberOfTuples();
  for (vtkIdType i = 0; i < n; ++i) {
    const double v = a->GetComponent(i, 0);
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(lo <= hi)) return {0, 1};
  if (lo == hi) hi = lo + 1;
  return {lo, hi};
}

}  // namespace hzio::viewer
