#include "hzio/util/stream_copy.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hzio {

void StreamCopy(uint8_t* to, const uint8_t* from, size_t n) {
#if defined(__SSE2__)
  constexpr uintptr_t kLine = 64;
  const uintptr_t start = reinterpret_cast<uintptr_t>(to);
  const uintptr_t first_line = (start + kLine - 1) & ~(kLine - 1);
  const uintptr_t end_lines = (start + n) & ~(kLine - 1);
  if (end_lines <= first_line) {  // no whole line inside
    std::memcpy(to, from, n);
    return;
  }
  const size_t head = first_line - start;
  std::memcpy(to, from, head);
  const uint8_t* s = from + head;
  auto* d = reinterpret_cast<__m128i*>(first_line);
  auto* const end = reinterpret_cast<__m128i*>(end_lines);
  for (; d < end; d += 4, s += kLine) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(d, a);
    _mm_stream_si128(d + 1, b);
    _mm_stream_si128(d + 2, c);
    _mm_stream_si128(d + 3, e);
  }
  std::memcpy(reinterpret_cast<uint8_t*>(end_lines), s, start + n - end_lines);
#else
  std::memcpy(to, from, n);
#endif
}

void StreamFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace hzio
