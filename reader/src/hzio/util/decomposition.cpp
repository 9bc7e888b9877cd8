#include "hzio/util/decomposition.h"

#include <cstdlib>
#include <random>
#include <string>

#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

Box GridCell(const Box& box, const Point& grid, int64_t index) {
  const int n = box.dims();
  Box cell = box;
  for (int d = 0; d < n; ++d) {
    const int64_t parts = grid[d], i = index % parts;
    index /= parts;
    const int64_t size = box.p2[d] - box.p1[d], base = size / parts, extra = size % parts;
    cell.p1[d] = box.p1[d] + i * base + std::min(i, extra);
    cell.p2[d] = cell.p1[d] + base + (i < extra ? 1 : 0);
  }
  return cell;
}

namespace {

// Prime factors of n in ascending order (n <= a few thousand ranks or pieces).
std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> factors;
  for (int64_t p = 2; n > 1;) {
    if (n % p == 0) {
      factors.push_back(p);
      n /= p;
    } else {
      ++p;
    }
  }
  return factors;
}

}  // namespace

Point DefaultGrid(int ranks, int dims) {
  Point g(dims, 1);
  // Peel prime factors, largest first, onto the axis with the fewest cells (slowest axis on ties).
  const std::vector<int64_t> factors = PrimeFactors(ranks);
  for (size_t i = factors.size(); i-- > 0;) {
    int best = dims - 1;
    for (int d = dims - 1; d >= 0; --d)
      if (g[d] < g[best]) best = d;
    g[best] *= factors[i];
  }
  return g;
}

Point ParseGrid(const std::string& text, int dims) {
  const std::vector<std::string> parts = Split(text, ',');
  Point g(dims, 1);
  for (int d = 0; d < dims; ++d) {
    const std::string& part = parts[static_cast<size_t>(d)];
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    Check(!part.empty() && end && *end == '\0' && v >= 1, ErrorCode::kInvalidArgument,
          "--grid '" + text + "': expected " + std::to_string(dims) + " positive integers PX,PY[,PZ]");
    g[d] = v;
    Check(static_cast<size_t>(d) + 1 < parts.size() || d == dims - 1, ErrorCode::kInvalidArgument,
          "--grid '" + text + "' needs " + std::to_string(dims) + " values");
  }
  Check(parts.size() == static_cast<size_t>(dims), ErrorCode::kInvalidArgument,
        "--grid '" + text + "' has more than " + std::to_string(dims) + " values");
  return g;
}

namespace {

// Splits a box into k pieces by factoring k onto the axes with the largest extent per piece.
Point PieceGrid(const Box& box, int64_t k) {
  const int n = box.dims();
  Point g(n, 1);
  const std::vector<int64_t> factors = PrimeFactors(k);
  for (size_t i = factors.size(); i-- > 0;) {
    int best = 0;
    for (int d = 1; d < n; ++d)
      if ((box.p2[d] - box.p1[d]) * g[best] > (box.p2[best] - box.p1[best]) * g[d]) best = d;
    g[best] *= factors[i];
  }
  return g;
}

}  // namespace

std::vector<Box> RankPieces(const Box& domain, const Point& grid, int64_t pieces_per_rank, int rank) {
  Check(pieces_per_rank >= 1, ErrorCode::kInvalidArgument, "--blocks-per-rank must be >= 1");
  const int64_t ranks = grid.Product();
  Check(rank >= 0 && rank < ranks, ErrorCode::kInvalidArgument,
        "rank " + std::to_string(rank) + " outside the grid of " + std::to_string(ranks) + " cells");
  std::vector<Box> out;
  if (pieces_per_rank == 1) {
    out.push_back(GridCell(domain, grid, rank));
    return out;
  }
  // Fixed Fisher-Yates shuffle of all pieces (own modulo so every platform deals the same way).
  const int64_t total = ranks * pieces_per_rank;
  std::vector<int64_t> order(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(0x5eed1d);
  for (int64_t i = total - 1; i > 0; --i) std::swap(order[static_cast<size_t>(i)], order[rng() % static_cast<uint64_t>(i + 1)]);
  for (int64_t j = rank * pieces_per_rank; j < (rank + 1) * pieces_per_rank; ++j) {
    const int64_t piece = order[static_cast<size_t>(j)];
    const Box cell = GridCell(domain, grid, piece / pieces_per_rank);
    const Box part = GridCell(cell, PieceGrid(cell, pieces_per_rank), piece % pieces_per_rank);
    if (!part.Empty()) out.push_back(part);
  }
  return out;
}

}  // namespace hzio
