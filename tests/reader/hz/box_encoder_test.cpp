// HZ encoding of aligned boxes (hz/box_encoder.h) against the per-sample HZ address of
// idx-format.md §3.1–3.2 (HzFromPoint, what the serial engine's tables are built from): every
// sample lands at its own hz, for restructuring cells of every shape and for boxes larger than any
// former offset table (subtrees of more than 2^21 samples), with sinks that cut runs anywhere, and
// one encoder for fields of every sample size; a box cut into smaller subtrees for threads writes
// the same samples at the same addresses.
#include "hzio/hz/box_encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "hzio/hz/hz_order.h"
#include "hzio/hz/imposed_grid.h"
#include "hzio/util/error.h"
#include "hzio/util/thread_pool.h"

namespace hzio {
namespace {

// Every sample of an aligned box appears exactly once, at the hz its position has.
TEST(BoxEncoder, RunsHoldEverySampleAtItsHzAddress) {
  for (const char* bits : {"V0120120120", "V0101010", "V2102100", "V00112"}) {
    const Bitmask bm = Bitmask::Parse(bits);
    const int n = bm.dims();
    for (int shape = 0; shape < 4; ++shape) {
      Point size(n);
      for (int d = 0; d < n; ++d) size[d] = std::max<int64_t>(1, bm.pow2()[d] >> ((shape + d) % 3));
      const ImposedGrid grid(bm, bm.PaddedBox(), size);
      const BoxEncoder enc(bm, grid.cell_size());
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
            return RunSpan{reinterpret_cast<uint8_t*>(out.data()), pending};
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

// A box split into 2^split subtrees encoded by a pool's threads writes exactly what the one
// subtree writes, sample for sample, with a `keep` box that is not a power of two (subtrees outside
// it skipped as a whole) and an hz range (a round of the writer), for 4- and 24-byte samples.
TEST(BoxEncoder, SplitBoxesOnThreadsWriteWhatOneSubtreeWrites) {
  ThreadPool pool(2);
  for (const char* bits : {"V012012012012012012", "V0101010101", "V2102100"}) {
    const Bitmask bm = Bitmask::Parse(bits);
    const int n = bm.dims();
    const Box box(Point(n), bm.pow2());
    const int64_t count = box.Size().Product();
    Box keep = box;
    keep.p2[0] = std::max<int64_t>(1, box.p2[0] * 5 / 8);
    for (const int64_t sb : {int64_t{4}, int64_t{24}}) {
      std::vector<uint8_t> data(static_cast<size_t>(count * sb));
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
      for (const HzRange range : {HzRange{}, HzRange{static_cast<uint64_t>(count) / 3, static_cast<uint64_t>(count) * 3 / 4}}) {
        const auto encode = [&](const BoxEncoder& enc, ThreadPool* threads) {
          std::vector<uint8_t> out(data.size(), 0xEE);  // by hz address; 0xEE where nothing was written
          enc.Encode(box, data.data(), sb, keep, [&](uint64_t hz, int64_t want) {
            return RunSpan{out.data() + static_cast<int64_t>(hz) * sb, want};
          }, range, threads);
          return out;
        };
        const std::vector<uint8_t> one = encode(BoxEncoder(bm, box.Size()), nullptr);
        for (const int split : {1, BoxEncoder::SplitFor(2), 30}) {
          EXPECT_EQ(encode(BoxEncoder(bm, box.Size(), split), &pool), one) << bits << " sample bytes " << sb << " split " << split;
        }
      }
    }
  }
}

// A box of 2^22 samples (one subtree) and a half of the domain: every piece handed out holds
// exactly the samples of its hz addresses, each address once, for 8- and 24-byte samples.
TEST(BoxEncoder, LargeBoxesEqualThePerSampleAddress) {
  const Bitmask bm = Bitmask::Parse("V012012012012012012012012");  // 256^3
  for (const Point size : {Point{256, 128, 128}, Point{64, 64, 64}}) {
    const BoxEncoder enc(bm, size);
    const Box box(Point{0, 0, 0}, size);
    const int64_t count = size.Product();
    std::vector<uint64_t> hz_of(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      const Point p{i % size[0], i / size[0] % size[1], i / size[0] / size[1]};
      hz_of[static_cast<size_t>(i)] = HzFromPoint(bm, p);
    }
    for (const int64_t sb : {int64_t{8}, int64_t{24}}) {
      std::vector<uint8_t> data(static_cast<size_t>(count * sb));
      for (int64_t i = 0; i < count; ++i) {
        std::memcpy(data.data() + i * sb, &hz_of[static_cast<size_t>(i)], 8);
        std::memset(data.data() + i * sb + 8, static_cast<int>(i & 0x7F), static_cast<size_t>(sb - 8));
      }
      // Runs go back to back into `out`; each call's (hz, first slot, count) is checked afterwards.
      std::vector<uint8_t> out(data.size());
      struct Handed {
        uint64_t hz;
        int64_t first, count;
      };
      std::vector<Handed> handed;
      int64_t at = 0, bad = 0;
      enc.Encode(box, data.data(), sb, box, [&](uint64_t hz, int64_t want) {
        handed.push_back({hz, at, want});
        const RunSpan span{out.data() + at * sb, want};
        at += want;
        return span;
      });
      ASSERT_EQ(at, count);
      // Pieces of runs, in any order (slab by slab), none handed out twice.
      std::vector<Handed> by_hz = handed;
      std::sort(by_hz.begin(), by_hz.end(), [](const Handed& a, const Handed& b) { return a.hz < b.hz; });
      for (size_t i = 1; i < by_hz.size(); ++i)
        ASSERT_LE(by_hz[i - 1].hz + static_cast<uint64_t>(by_hz[i - 1].count), by_hz[i].hz) << "hz handed out twice";
      for (const Handed& h : handed)
        for (int64_t j = 0; j < h.count; ++j) {
          const uint8_t* sample = out.data() + (h.first + j) * sb;
          uint64_t got = 0;
          std::memcpy(&got, sample, 8);
          if (got != h.hz + static_cast<uint64_t>(j) && ++bad < 5)
            ADD_FAILURE() << "hz " << h.hz + static_cast<uint64_t>(j) << " holds the sample of hz " << got;
          if (sb > 8 && j == 0) {  // the rest of the sample came along with it
            const int64_t i = static_cast<int64_t>(std::find(hz_of.begin(), hz_of.end(), got) - hz_of.begin());
            ASSERT_EQ(sample[8], static_cast<uint8_t>(i & 0x7F));
          }
        }
      EXPECT_EQ(bad, 0);
    }
  }
}

// Encoding with an hz range (a parallel write's round) is the full encoding restricted to the
// range, byte for byte: the sink is asked only for addresses inside it, and every sample inside it
// is handed out. 2-D and 3-D bitmasks, cells of several shapes, samples small enough for one tile
// per subtree and large enough for many, ranges that cut runs (and tiles' pieces) in the middle.
TEST(BoxEncoder, EncodingARangeIsTheFullEncodingRestrictedToIt) {
  for (const char* bits : {"V012012012012012", "V0101010101", "V2102100210", "V00112011"}) {
    const Bitmask bm = Bitmask::Parse(bits);
    const int n = bm.dims();
    const uint64_t total = uint64_t{1} << bm.maxh();
    for (const int64_t sb : {int64_t{4}, int64_t{72}}) {
      for (int shape = 0; shape < 2; ++shape) {
        Point size(n);
        for (int d = 0; d < n; ++d) size[d] = std::max<int64_t>(1, bm.pow2()[d] >> ((shape + d) % 2));
        const ImposedGrid grid(bm, bm.PaddedBox(), size);
        const BoxEncoder enc(bm, grid.cell_size());
        const Box box = grid.CellBox(grid.num_cells() - 1);
        const int64_t count = box.Size().Product();
        std::vector<uint8_t> data(static_cast<size_t>(count * sb));
        for (int64_t i = 0; i < count * sb; ++i) data[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 2654435761u) >> 13);
        // hz-indexed results: `full` from one encoding of everything, `part` (0xEE where untouched)
        // from an encoding of a range.
        std::vector<char> written(total, 0);  // by the full encoding
        const auto encode = [&](const HzRange& range, std::vector<uint8_t>& out, int64_t* asked, bool mark) {
          enc.Encode(box, data.data(), sb, bm.PaddedBox(), [&](uint64_t hz, int64_t want) {
            EXPECT_TRUE(hz >= range.begin && hz + static_cast<uint64_t>(want) <= range.end)
                << bits << " asked for [" << hz << ", +" << want << ") outside [" << range.begin << ", " << range.end << ")";
            const int64_t m = std::min<int64_t>(want, 5);  // runs also cut by the sink
            *asked += m;
            if (mark) std::fill_n(written.begin() + static_cast<int64_t>(hz), m, 1);
            return RunSpan{out.data() + hz * static_cast<uint64_t>(sb), m};
          }, range);
        };
        std::vector<uint8_t> full(total * static_cast<uint64_t>(sb), 0xEE);
        int64_t all = 0;
        encode(HzRange{}, full, &all, true);
        ASSERT_EQ(all, count) << bits;
        std::vector<HzRange> ranges = {{0, total}, {0, 1}, {total / 2, total}, {total / 4 + 3, total / 2 + total / 8 + 5},
                                       {total / 2 + 7, total / 2 + 9}, {5, total - 11}, {total, total + 100}};
        uint64_t seed = 12345;
        for (int r = 0; r < 6; ++r) {
          seed = seed * 6364136223846793005u + 1442695040888963407u;
          const uint64_t a = (seed >> 20) % total, b = (seed >> 40) % total;
          ranges.push_back({std::min(a, b), std::max(a, b) + 1});
        }
        for (const HzRange& range : ranges) {
          std::vector<uint8_t> part(full.size(), 0xEE);
          int64_t asked = 0;
          encode(range, part, &asked, false);
          int64_t expected = 0, differ = 0;
          for (uint64_t hz = 0; hz < total; ++hz) {
            const bool inside = hz >= range.begin && hz < range.end;
            const uint8_t* want = inside ? full.data() + hz * sb : nullptr;
            const uint8_t* got = part.data() + hz * sb;
            if (inside && written[hz]) ++expected;
            const bool same = want ? std::memcmp(got, want, static_cast<size_t>(sb)) == 0
                                   : std::all_of(got, got + sb, [](uint8_t c) { return c == 0xEE; });
            if (!same && ++differ < 4)
              ADD_FAILURE() << bits << " sb " << sb << " range [" << range.begin << ", " << range.end << "): hz " << hz
                            << (inside ? " differs from the full encoding" : " written outside the range");
          }
          EXPECT_EQ(differ, 0);
          EXPECT_EQ(asked, expected) << bits << " range [" << range.begin << ", " << range.end << ")";
        }
      }
    }
  }
}

TEST(BoxEncoder, RefusesUnalignedBoxes) {
  const Bitmask bm = Bitmask::Parse("V012012012");
  const BoxEncoder enc(bm, Point{4, 4, 4});
  std::vector<uint8_t> data(64 * 4);
  try {
    enc.Encode(Box(Point{2, 0, 0}, Point{6, 4, 4}), data.data(), 4, bm.PaddedBox(),
               [&](uint64_t, int64_t n) { return RunSpan{nullptr, n}; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInternal);
    EXPECT_NE(std::string(e.what()).find("not an aligned cell"), std::string::npos) << e.what();
  }
}

// One encoder keeps a coder per sample size (a writer encodes every cell of every field with it):
// fields of different sample sizes, encoded in any order and again, give what an encoder built for
// each call gives.
TEST(BoxEncoder, OneEncoderServesEverySampleSizeAlike) {
  const Bitmask bm = Bitmask::Parse("V0120120120");
  const Point size{8, 4, 4};  // a cell of the 16x8x8 domain
  const Box box(Point{8, 0, 4}, Point{16, 4, 8});
  const BoxEncoder shared(bm, size);
  const auto encode = [&](const BoxEncoder& enc, int64_t sb) {
    const int64_t count = box.Size().Product();
    std::vector<uint8_t> data(static_cast<size_t>(count * sb)), out(data.size());
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 31 + i / 7);
    int64_t at = 0;
    enc.Encode(box, data.data(), sb, bm.PaddedBox(), [&](uint64_t, int64_t n) {
      const RunSpan span{out.data() + at * sb, n};
      at += n;
      return span;
    });
    EXPECT_EQ(at, count);
    return out;
  };
  for (const int64_t sb : {4, 24, 4, 88, 1, 24})
    EXPECT_EQ(encode(shared, sb), encode(BoxEncoder(bm, size), sb)) << "sample bytes " << sb;
}

}  // namespace
}  // namespace hzio
