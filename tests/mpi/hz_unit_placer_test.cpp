// Tests of mpi/hz_unit_placer.h (no MPI): units handed over in hz order land in a result box exactly
// where the §4 formula says, whether the box takes them whole (scattered) or in part (through the
// unit's grid), at the finest and at coarser levels (unit 0 then sparse), for several layouts,
// boxes and sample sizes (4 and 8 bytes: in runs where they fit, hz/unit_scatter.h); a unit the box
// does not meet changes nothing.
#include "hzio/mpi/hz_unit_placer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hzio/access/synthetic.h"
#include "hzio/format/dtype.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/util/stream_copy.h"

namespace hzio::mpi {
namespace {

// Unit u's samples in hz order: the formula at its grid's points, put in hz order; of unit 0 at a
// coarser level only the samples a read has (the rest garbage).
std::vector<uint8_t> HzUnit(const BlockLayout& units, uint64_t u, const DType& dtype, int level) {
  const Grid g = units.BlockGrid(u);
  const int64_t sb = dtype.SampleBytes();
  std::vector<uint8_t> rows(static_cast<size_t>(g.NumSamples() * sb)), hz(rows.size());
  FillSynthetic(dtype, 0, 0, g, rows.data());
  const std::vector<uint32_t>& to_hz = units.RowMajorToHz(units.BlockLevel(u));
  for (int64_t r = 0; r < g.NumSamples(); ++r)
    std::copy_n(rows.begin() + r * sb, sb, hz.begin() + static_cast<int64_t>(to_hz[static_cast<size_t>(r)]) * sb);
  std::fill(hz.begin() + UnitSamplesNeeded(units, u, level) * sb, hz.end(), uint8_t{0x5A});
  return hz;
}

TEST(HzUnitPlacer, UnitsLandWhereTheFormulaSays) {
  const struct {
    const char* bitmask;
    int bits_per_block;
    Box box;
    bool everything;  // the box is the whole domain: units of the finest level are taken whole
  } cases[] = {
      {"V012012012", 4, Box(Point{0, 0, 0}, Point{8, 8, 8}), true},
      {"V012012012", 4, Box(Point{1, 2, 3}, Point{7, 8, 6}), false},  // units cut by the box
      {"V0011012", 3, Box(Point{0, 0, 0}, Point{8, 8, 2}), false},    // a slab
      {"V21021021", 5, Box(Point{2, 0, 1}, Point{5, 8, 8}), false},   // irregular bitmask, thin box
      {"V0101010101", 6, Box(Point{0, 0}, Point{32, 32}), true},      // 2-D
  };
  for (const auto& c : cases) {
    const Bitmask bitmask = Bitmask::Parse(c.bitmask);
    const BlockLayout units(bitmask, c.bits_per_block);
    const uint64_t unit_count = (uint64_t{1} << units.maxh()) / static_cast<uint64_t>(units.samples_per_block());
    for (const std::string type : {"float64", "float32", "uint8[3]", "float32[4]"}) {
      const DType dtype = DType::Parse(type);
      const int64_t sb = dtype.SampleBytes();
      for (const int level : {units.maxh(), units.maxh() - 1, c.bits_per_block - 1}) {
        const Grid result = units.QueryGrid(c.box, LevelRange{0, level});
        std::vector<uint8_t> data(static_cast<size_t>(result.NumSamples() * sb), 0xA5);
        HzUnitPlacer placer(units, level);
        int whole = 0;
        for (uint64_t u = 0; u < unit_count && (u == 0 || units.BlockLevel(u) <= level); ++u) {
          const std::vector<uint8_t> hz = HzUnit(units, u, dtype, level);
          const std::vector<uint8_t> before = data;
          const HzUnitPlacer::Scatter s = placer.PlanScatter(u, sb, result, data.data(), c.box);
          whole += s.fit == HzUnitPlacer::Fit::kWhole;
          placer.Place(u, hz.data(), sb, result, data.data(), c.box, u % 2 == 1);
          if (s.fit == HzUnitPlacer::Fit::kNone) {
            ASSERT_EQ(data, before) << c.bitmask << " unit " << u << ": placed though it misses the box";
          }
        }
        StreamFence();  // every other unit was placed with streaming stores
        EXPECT_LT(FirstSyntheticMismatch(dtype, 0, 0, result, data.data()), 0)
            << c.bitmask << " " << type << " level " << level;
        if (level == units.maxh() && c.everything) {
          EXPECT_GT(whole, 0) << c.bitmask << ": no unit scattered whole";
        }
      }
    }
  }
}

}  // namespace
}  // namespace hzio::mpi
