// StreamCopy (util/stream_copy.h) is memcpy at every alignment and length: streamed whole lines,
// partial lines at both ends, and copies that hold no whole line.
#include "hzio/util/stream_copy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace hzio {
namespace {

TEST(StreamCopy, EqualsMemcpyAtEveryAlignmentAndLength) {
  std::vector<uint8_t> from(1024), to(1024 + 128);
  for (size_t i = 0; i < from.size(); ++i) from[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t dst_offset = 0; dst_offset < 72; ++dst_offset) {
    for (size_t src_offset : {0, 1, 16, 63}) {
      for (size_t n : {0, 1, 15, 63, 64, 65, 127, 128, 200, 256, 511, 700}) {
        std::fill(to.begin(), to.end(), uint8_t{0xEE});
        StreamCopy(to.data() + dst_offset, from.data() + src_offset, n);
        StreamFence();
        for (size_t i = 0; i < to.size(); ++i) {
          const bool inside = i >= dst_offset && i < dst_offset + n;
          const uint8_t want = inside ? from[src_offset + i - dst_offset] : uint8_t{0xEE};
          ASSERT_EQ(to[i], want) << "byte " << i << " of a copy of " << n << " bytes to offset " << dst_offset
                                 << " from offset " << src_offset;
        }
      }
    }
  }
}

}  // namespace
}  // namespace hzio
