// HZ encoding of restructured boxes against the per-sample HZ address (idx-format.md §3.1–3.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "hzio/hz/hz_order.h"
#include "hzio/mpi/hz_encode.h"
#include "hzio/hz/imposed_grid.h"

namespace hzio::mpi {
namespace {

// Every sample of an aligned box appears exactly once, at the hz its position has.
TEST(HzEncode, RunsHoldEverySampleAtItsHzAddress) {
  for (const char* bits : {"V0120120120", "V0101010", "V2102100", "V00112"}) {
    const Bitmask bm = Bitmask::Parse(bits);
    const int n = bm.dims();
    for (int shape = 0; shape < 4; ++shape) {
      Point size(n);
      for (int d = 0; d < n; ++d) size[d] = std::max<int64_t>(1, bm.pow2()[d] >> ((shape + d) % 3));
      const ImposedGrid grid(bm, bm.PaddedBox(), size);
      const HzEncoder enc(bm, grid.cell_size());
      for (int64_t id = 0; id < grid.num_cells(); ++id) {
        const Box box = grid.CellBox(id);
        const int64_t count = box.Size().Product();
        std::vector<uint32_t> data(static_cast<size_t>(count));
        for (int64_t i = 0; i < count; ++i) {
          Point p(n);
          int64_t r = i;
          for (int d = 0; d < n; ++d) {
            p[d] = box.p1[d] + r % box.Size()[d];
            r /= box.Size()[d];
          }
          data[static_cast<size_t>(i)] = static_cast<uint32_t>(HzFromPoint(bm, p));
        }
        // The sink hands out at most `chunk` samples at a time, so runs are also split.
        for (const int64_t chunk : {int64_t{1} << 40, int64_t{3}}) {
          std::vector<uint32_t> out;
          std::vector<uint64_t> addresses;
          int64_t seen = 0;
          uint64_t pending_hz = 0;
          int64_t pending = 0;
          const auto check_pending = [&] {
            for (int64_t j = 0; j < pending; ++j)
              EXPECT_EQ(out[static_cast<size_t>(j)], pending_hz + static_cast<uint64_t>(j))
                  << bits << " box " << box.ToRangesString();
            for (int64_t j = 0; j < pending; ++j) addresses.push_back(pending_hz + static_cast<uint64_t>(j));
            seen += pending;
          };
          out.resize(static_cast<size_t>(std::min<int64_t>(chunk, count)));
          enc.Encode(box, reinterpret_cast<const uint8_t*>(data.data()), 4, box, [&](uint64_t hz, int64_t want) {
            check_pending();  // the previous destination is complete when the sink is called again
            pending_hz = hz;
            pending = std::min<int64_t>(want, static_cast<int64_t>(out.size()));
            return RunDestination{reinterpret_cast<uint8_t*>(out.data()), pending};
          });
          check_pending();
          std::sort(addresses.begin(), addresses.end());
          EXPECT_EQ(std::unique(addresses.begin(), addresses.end()) - addresses.begin(), count) << bits;
          EXPECT_EQ(seen, count) << bits << " chunk " << chunk;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hzio::mpi
