#include "hzio/access/aggregation_plan.h"

#include <algorithm>

namespace hzio {

namespace {
__extension__ typedef __int128 Wide;  // products of two 64-bit counts
}  // namespace

Span EvenSplit(int64_t n, int64_t parts, int64_t i) {
  const auto at = [&](int64_t k) {
    return static_cast<int64_t>(static_cast<Wide>(k) * n / parts);
  };
  return Span{at(i), at(i + 1)};
}

int64_t EvenSplitOwner(int64_t n, int64_t parts, int64_t item) {
  // Largest p with floor(p*n/parts) <= item.
  int64_t p = static_cast<int64_t>((static_cast<Wide>(item) * parts + parts - 1) / n);
  p = std::clamp<int64_t>(p, 0, parts - 1);
  while (p > 0 && EvenSplit(n, parts, p).begin > item) --p;
  while (p + 1 < parts && EvenSplit(n, parts, p + 1).begin <= item) ++p;
  return p;
}

void AppendMerged(std::vector<Span>& spans, const Span& span) {
  if (span.size() == 0) return;
  if (!spans.empty() && spans.back().end == span.begin) spans.back().end = span.end;
  else spans.push_back(span);
}

int AggregatorRank(int64_t i, int64_t aggregators, int ranks) {
  return static_cast<int>(static_cast<Wide>(i) * ranks / aggregators);
}

int64_t AggregatorOfRank(int rank, int64_t aggregators, int ranks) {
  // Aggregator ranks are strictly increasing when aggregators <= ranks.
  const int64_t i = static_cast<int64_t>((static_cast<Wide>(rank) * aggregators + ranks - 1) / ranks);
  if (i < aggregators && AggregatorRank(i, aggregators, ranks) == rank) return i;
  return -1;
}

}  // namespace hzio
