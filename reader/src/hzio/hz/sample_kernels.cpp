#include "hzio/hz/sample_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

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

enum class Kind { kGather, kScatter, kScatterFar };

template <size_t kBytes>
SampleKernel Pick(Kind kind) {
  switch (kind) {
    case Kind::kGather: return GatherFixed<kBytes>;
    case Kind::kScatter: return ScatterFixed<kBytes>;
    case Kind::kScatterFar: return ScatterFixedFar<kBytes>;
  }
  return nullptr;
}

SampleKernel Fixed(int64_t sb, Kind kind) {
  switch (sb) {
    case 1: return Pick<1>(kind);
    case 2: return Pick<2>(kind);
    case 3: return Pick<3>(kind);
    case 4: return Pick<4>(kind);
    case 6: return Pick<6>(kind);
    case 8: return Pick<8>(kind);
    case 12: return Pick<12>(kind);
    case 16: return Pick<16>(kind);
    case 24: return Pick<24>(kind);
    case 32: return Pick<32>(kind);
    case 40: return Pick<40>(kind);
    case 48: return Pick<48>(kind);
    case 56: return Pick<56>(kind);
    case 64: return Pick<64>(kind);
    case 72: return Pick<72>(kind);
    case 80: return Pick<80>(kind);
    case 88: return Pick<88>(kind);
    case 96: return Pick<96>(kind);
    case 128: return Pick<128>(kind);
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

SampleKernel GatherKernel(int64_t sb) { return Fixed(sb, Kind::kGather); }

SampleKernel ScatterKernel(int64_t sb, Reach reach) {
  return Fixed(sb, reach == Reach::kFar ? Kind::kScatterFar : Kind::kScatter);
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
