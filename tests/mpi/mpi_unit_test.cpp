// Pure pieces of hzio::mpi, checked exhaustively on small cases: even splits and their inverse,
// aggregator placement, decompositions that cover the domain exactly once, and HZ encoding of
// restructured boxes against the per-sample HZ address (idx-format.md §3.1–3.2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "hzio/hz/hz_order.h"
#include "hzio/mpi/aggregation.h"
#include "hzio/mpi/decomposition.h"
#include "hzio/mpi/hz_encode.h"
#include "hzio/mpi/imposed_grid.h"

namespace hzio::mpi {
namespace {

TEST(Aggregation, EvenSplitOwnerInvertsEvenSplit) {
  for (int64_t n = 1; n <= 40; ++n)
    for (int64_t parts = 1; parts <= 12; ++parts) {
      int64_t covered = 0;
      for (int64_t p = 0; p < parts; ++p) {
        const Span s = EvenSplit(n, parts, p);
        EXPECT_LE(s.size(), n / parts + 1);
        EXPECT_GE(s.size(), n / parts);
        for (int64_t i = s.begin; i < s.end; ++i) EXPECT_EQ(EvenSplitOwner(n, parts, i), p) << n << " " << parts;
        covered += s.size();
      }
      EXPECT_EQ(covered, n);
    }
}

TEST(Aggregation, AggregatorsAreSpreadAndFoundBack) {
  for (int ranks = 1; ranks <= 16; ++ranks)
    for (int64_t aggs = 1; aggs <= ranks; ++aggs) {
      int64_t found = 0;
      for (int r = 0; r < ranks; ++r) {
        const int64_t a = AggregatorOfRank(r, aggs, ranks);
        if (a >= 0) {
          EXPECT_EQ(AggregatorRank(a, aggs, ranks), r);
          ++found;
        }
      }
      EXPECT_EQ(found, aggs);
    }
}

TEST(Decomposition, PiecesCoverTheDomainExactlyOnce) {
  const Box domain(Point{0, 0, 0}, Point{13, 7, 5});
  for (int ranks : {1, 2, 3, 4, 6, 8})
    for (int64_t k : {1, 2, 3, 4}) {
      const Point grid = DefaultGrid(ranks, 3);
      ASSERT_EQ(grid.Product(), ranks);
      std::map<std::tuple<int64_t, int64_t, int64_t>, int> hits;
      for (int r = 0; r < ranks; ++r)
        for (const Box& b : RankPieces(domain, grid, k, r))
          for (int64_t z = b.p1[2]; z < b.p2[2]; ++z)
            for (int64_t y = b.p1[1]; y < b.p2[1]; ++y)
              for (int64_t x = b.p1[0]; x < b.p2[0]; ++x) ++hits[{x, y, z}];
      EXPECT_EQ(static_cast<int64_t>(hits.size()), domain.Size().Product()) << ranks << " ranks, k=" << k;
      for (const auto& [p, n] : hits) EXPECT_EQ(n, 1);
    }
}

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
