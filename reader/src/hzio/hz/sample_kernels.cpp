#include "hzio/hz/sample_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

namespace hzio {

namespace {

template <size_t kBytes>
void GatherFixed(uint8_t* out, const uint8_t* src, const uint32_t* table, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(out + j * kBytes, src + static_cast<size_t>(table[j]) * kBytes, kBytes);
}

template <size_t kBytes>
void ScatterFixed(uint8_t* dst, const uint8_t* in, const uint32_t* table, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + static_cast<size_t>(table[j]) * kBytes, in + j * kBytes, kBytes);
}

// The destination lines of the sample about 2 KiB ahead are asked for with write intent: a scatter
// over a large array otherwise waits a memory latency for each line it fills in part (the lines'
// other samples come from other blocks), which no hardware prefetcher predicts from a table.
template <size_t kBytes>
void ScatterFixedFar(uint8_t* dst, const uint8_t* in, const uint32_t* table, int64_t n) {
  constexpr int64_t kAhead = std::clamp<int64_t>(2048 / static_cast<int64_t>(kBytes), 8, 128);
  int64_t j = 0;
  for (; j + kAhead < n; ++j) {
    uint8_t* const ahead = dst + static_cast<size_t>(table[j + kAhead]) * kBytes;
    __builtin_prefetch(ahead, 1, 3);
    if constexpr (kBytes > 1) __builtin_prefetch(ahead + kBytes - 1, 1, 3);
    std::memcpy(dst + static_cast<size_t>(table[j]) * kBytes, in + j * kBytes, kBytes);
  }
  ScatterFixed<kBytes>(dst, in + j * kBytes, table + j, n - j);
}

// Each group's samples in the order of their destinations (`to` ascending): the stores fill one
// cache line after the other instead of visiting every line of the group once per pass of its hz
// order, and a group's sources sit in the L1 cache whatever order they are read in.
template <size_t kBytes>
void GroupScatterFixed(uint8_t* dst, const uint8_t* in, const uint32_t* firsts, int64_t n, int64_t group,
                       const uint32_t* to, const uint16_t* from) {
  for (int64_t f = 0; f < n; f += group) {
    uint8_t* const base = dst + static_cast<size_t>(firsts[f]) * kBytes;
    const uint8_t* const samples = in + static_cast<size_t>(f) * kBytes;
    for (int64_t k = 0; k < group; ++k)
      std::memcpy(base + static_cast<size_t>(to[k]) * kBytes, samples + static_cast<size_t>(from[k]) * kBytes, kBytes);
  }
}

// The instance of a kernel for samples of `sb` bytes (`pick` given the size as a constant), or
// the kernel type's nullptr for a size without one.
template <class Pick>
auto ForSize(int64_t sb, Pick pick) -> decltype(pick(std::integral_constant<size_t, 1>{})) {
  switch (sb) {
    case 1: return pick(std::integral_constant<size_t, 1>{});
    case 2: return pick(std::integral_constant<size_t, 2>{});
    case 3: return pick(std::integral_constant<size_t, 3>{});
    case 4: return pick(std::integral_constant<size_t, 4>{});
    case 6: return pick(std::integral_constant<size_t, 6>{});
    case 8: return pick(std::integral_constant<size_t, 8>{});
    case 12: return pick(std::integral_constant<size_t, 12>{});
    case 16: return pick(std::integral_constant<size_t, 16>{});
    case 24: return pick(std::integral_constant<size_t, 24>{});
    case 32: return pick(std::integral_constant<size_t, 32>{});
    case 40: return pick(std::integral_constant<size_t, 40>{});
    case 48: return pick(std::integral_constant<size_t, 48>{});
    case 56: return pick(std::integral_constant<size_t, 56>{});
    case 64: return pick(std::integral_constant<size_t, 64>{});
    case 72: return pick(std::integral_constant<size_t, 72>{});
    case 80: return pick(std::integral_constant<size_t, 80>{});
    case 88: return pick(std::integral_constant<size_t, 88>{});
    case 96: return pick(std::integral_constant<size_t, 96>{});
    case 128: return pick(std::integral_constant<size_t, 128>{});
    default: return nullptr;
  }
}

// Other sizes: a loop over the sample's words (a memcpy call of a variable size per sample cost
// more than the copy). kScatter: a[table[j]] = b[j], else a[j] = b[table[j]].
template <class Word, bool kScatter>
void MoveWords(uint8_t* a, const uint8_t* b, const uint32_t* table, int64_t n, int64_t words) {
  for (int64_t j = 0; j < n; ++j) {
    const int64_t at = static_cast<int64_t>(table[j]) * words;
    Word* to = reinterpret_cast<Word*>(a) + (kScatter ? at : j * words);
    const Word* from = reinterpret_cast<const Word*>(b) + (kScatter ? j * words : at);
    for (int64_t w = 0; w < words; ++w) std::memcpy(to + w, from + w, sizeof(Word));
  }
}

template <bool kScatter>
void MoveAny(uint8_t* a, const uint8_t* b, const uint32_t* table, int64_t n, int64_t sb) {
  if (sb % 8 == 0) return MoveWords<uint64_t, kScatter>(a, b, table, n, sb / 8);
  if (sb % 4 == 0) return MoveWords<uint32_t, kScatter>(a, b, table, n, sb / 4);
  if (sb % 2 == 0) return MoveWords<uint16_t, kScatter>(a, b, table, n, sb / 2);
  MoveWords<uint8_t, kScatter>(a, b, table, n, sb);
}

}  // namespace

SampleKernel GatherKernel(int64_t sb) {
  return ForSize(sb, [](auto size) -> SampleKernel { return GatherFixed<size()>; });
}

SampleKernel ScatterKernel(int64_t sb, Reach reach) {
  if (reach == Reach::kFar) return ForSize(sb, [](auto size) -> SampleKernel { return ScatterFixedFar<size()>; });
  return ForSize(sb, [](auto size) -> SampleKernel { return ScatterFixed<size()>; });
}

GroupScatterKernel GroupKernel(int64_t sb) {
  return ForSize(sb, [](auto size) -> GroupScatterKernel { return GroupScatterFixed<size()>; });
}

void Gather(uint8_t* out, const uint8_t* src, const uint32_t* table, int64_t n, int64_t sb, SampleKernel kernel) {
  if (kernel) return kernel(out, src, table, n);
  MoveAny<false>(out, src, table, n, sb);
}

void Scatter(uint8_t* dst, const uint8_t* in, const uint32_t* table, int64_t n, int64_t sb, SampleKernel kernel) {
  if (kernel) return kernel(dst, in, table, n);
  MoveAny<true>(dst, in, table, n, sb);
}

}  // namespace hzio
