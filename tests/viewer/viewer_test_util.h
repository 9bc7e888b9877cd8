/// Shared by the viewer's gtests: a small synthetic 3-D dataset written by hzio's own writer
/// (design.md §4 formula for float32, field 0, timestep t).
#pragma once

#include <string>
#include <vector>

#include "../reader/test_util.h"
#include "hzio/access/dataset_writer.h"

namespace hzio::viewer::testing {

/// design.md §4: float dtypes, field 0, component 0.
inline float SyntheticValue(int64_t x, int64_t y, int64_t z, int64_t t) {
  return static_cast<float>(static_cast<double>(x + 1000 * y + 1000000 * z) + 1e9 * static_cast<double>(t));
}

/// Writes an nx*ny*nz float32 dataset "v" with `times` timesteps; returns the .idx path.
inline std::string WriteSyntheticDataset(const hzio::testing::TempDir& dir, int64_t nx, int64_t ny, int64_t nz,
                                         int64_t times = 1) {
  const std::string idx = dir.File("synthetic.idx");
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{nx, ny, nz}};
  h.fields.push_back(Field::Parse("v float32 default_compression(lz4)", 6));
  if (times > 1) h.time = TimeSpec::Range(0, times - 1, "time_%02d/");
  h.bits_per_block = 9;
  CreateEmptyDataset(idx, h);
  for (int64_t t = 0; t < times; ++t) {
    WriterOptions options;
    options.allow_existing = true;
    DatasetWriter w(idx, h, options);
    std::vector<float> a(static_cast<size_t>(nx * ny * nz));
    for (int64_t z = 0; z < nz; ++z)
      for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x) a[static_cast<size_t>(x + nx * (y + ny * z))] = SyntheticValue(x, y, z, t);
    w.Write(0, t, h.box, reinterpret_cast<const uint8_t*>(a.data()));
    w.Finish();
  }
  return idx;
}

}  // namespace hzio::viewer::testing
