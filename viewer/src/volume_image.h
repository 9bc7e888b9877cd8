/// Box-query results (idx-format.md §3.4) as VTK images placed in physic coordinates (§1.2): a
/// sample at logic coordinate i covers the cell [i, i+1) and is drawn at its centre, whatever the
/// level, so coarse and fine images of the same region line up exactly.
#pragma once

#include <array>

#include <vtkSmartPointer.h>

#include "hzio/access/dataset.h"

class vtkImageData;

namespace hzio::viewer {

/// Placement of a result grid in physic space (2-D datasets lie in z = 0).
struct ImageGeometry {
  std::array<int, 3> dims{1, 1, 1};
  std::array<double, 3> origin{}, spacing{1, 1, 1};
};

ImageGeometry GeometryFor(const IdxHeader& header, const Grid& grid);

/// Physic bounds of the whole dataset (xmin, xmax, ymin, ymax, zmin, zmax), z = 0..0 in 2-D.
std::array<double, 6> PhysicBounds(const IdxHeader& header);
/// Physic size of one full-resolution sample along each axis (1 for missing axes).
std::array<double, 3> FullResolutionSpacing(const IdxHeader& header);

/// Whether a dtype is shown as colours directly (2-D uint8 with 3 or 4 components).
bool IsColorImage(const IdxHeader& header, const DType& dtype);

/// Converts a result to a VTK image: float32 scalars (vectors become their magnitude), or
/// unsigned-char RGB(A) for colour images.
vtkSmartPointer<vtkImageData> MakeImage(const IdxHeader& header, const BoxResult& result);

/// Finite min and max of the first scalar component ({0, 1} when there is none).
std::array<double, 2> ValueRange(vtkImageData* image);

}  // namespace hzio::viewer
