// Result grids become VTK images placed at their samples' physic positions (viewer/src/volume_image.h).
#include <gtest/gtest.h>

#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkPointData.h>

#include "support/test_support.h"
#include "volume_image.h"

namespace hzio::viewer {
namespace {

TEST(VolumeImage, CoarseAndFineSamplesSitAtTheirCellCentres) {
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{64, 32, 16}};
  h.bitmask = Bitmask::Guess(h.box.p2);
  h.physic_box = {-1, 1, 0, 4, 10, 12};
  const Grid grid{Point{8, 4, 0}, Point{4, 2, 2}, Point{5, 6, 8}};
  const ImageGeometry g = GeometryFor(h, grid);
  EXPECT_EQ(g.dims, (std::array<int, 3>{5, 6, 8}));
  // unit spacing: 2/64, 4/32, 2/16
  EXPECT_DOUBLE_EQ(g.spacing[0], 4 * 2.0 / 64);
  EXPECT_DOUBLE_EQ(g.spacing[1], 2 * 4.0 / 32);
  EXPECT_DOUBLE_EQ(g.spacing[2], 2 * 2.0 / 16);
  EXPECT_DOUBLE_EQ(g.origin[0], -1 + 8.5 * 2.0 / 64);
  EXPECT_DOUBLE_EQ(g.origin[1], 0 + 4.5 * 4.0 / 32);
  EXPECT_DOUBLE_EQ(g.origin[2], 10 + 0.5 * 2.0 / 16);
  const auto b = PhysicBounds(h);
  EXPECT_EQ(b, (std::array<double, 6>{-1, 1, 0, 4, 10, 12}));
}

TEST(VolumeImage, ValuesAndRangeFromARead) {
  hzio::testing::TempDir dir;
  auto ds = OpenDataset(hzio::testing::WriteSyntheticDataset(dir, 16, 8, 4));
  BoxQuery q;
  q.level = ds->header().maxh() - 3;
  const BoxResult r = ds->Read(q);
  const Grid& g = r.grid;
  ASSERT_GT(g.stride[0] * g.stride[1] * g.stride[2], 1);  // a coarse level
  auto image = MakeImage(ds->header(), r);
  int dims[3];
  image->GetDimensions(dims);
  for (int d = 0; d < 3; ++d) EXPECT_EQ(dims[d], g.count[d]);
  vtkDataArray* a = image->GetPointData()->GetScalars();
  ASSERT_EQ(a->GetNumberOfTuples(), g.NumSamples());
  for (int64_t z = 0; z < g.count[2]; ++z)
    for (int64_t y = 0; y < g.count[1]; ++y)
      for (int64_t x = 0; x < g.count[0]; ++x) {
        const vtkIdType id = image->ComputePointId(std::array<int, 3>{int(x), int(y), int(z)}.data());
        ASSERT_EQ(a->GetComponent(id, 0), hzio::testing::SyntheticValue(x * g.stride[0], y * g.stride[1], z * g.stride[2], 0));
      }
  const auto range = ValueRange(image);
  EXPECT_EQ(range[0], 0);
  EXPECT_EQ(range[1], hzio::testing::SyntheticValue((g.count[0] - 1) * g.stride[0], (g.count[1] - 1) * g.stride[1],
                                              (g.count[2] - 1) * g.stride[2], 0));
}

TEST(VolumeImage, ColorImagesOnlyFor2dBytes) {
  IdxHeader h2;
  h2.box = Box{Point{0, 0}, Point{4, 4}};
  h2.bitmask = Bitmask::Guess(h2.box.p2);
  IdxHeader h3;
  h3.box = Box{Point{0, 0, 0}, Point{4, 4, 4}};
  h3.bitmask = Bitmask::Guess(h3.box.p2);
  EXPECT_TRUE(IsColorImage(h2, DType::Parse("uint8[3]")));
  EXPECT_TRUE(IsColorImage(h2, DType::Parse("uint8[4]")));
  EXPECT_FALSE(IsColorImage(h2, DType::Parse("float32[3]")));
  EXPECT_FALSE(IsColorImage(h3, DType::Parse("uint8[3]")));
}

}  // namespace
}  // namespace hzio::viewer
