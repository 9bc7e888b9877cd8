// Decompositions of a domain over ranks (util/decomposition.h): every sample in exactly one piece.
#include "hzio/util/decomposition.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "hzio/util/error.h"

namespace hzio {
namespace {

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

TEST(Decomposition, GridCellsSplitUnevenAxesFrontFirst) {
  const Box box(Point{0, 0}, Point{7, 4});
  EXPECT_EQ(GridCell(box, Point{2, 1}, 0), Box(Point{0, 0}, Point{4, 4}));
  EXPECT_EQ(GridCell(box, Point{2, 1}, 1), Box(Point{4, 0}, Point{7, 4}));
  EXPECT_EQ(ParseGrid("2,1", 2), (Point{2, 1}));
}

TEST(Decomposition, BadGridTextNamesIt) {
  try {
    ParseGrid("2,q", 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("--grid '2,q'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hzio
