#include "hzio/hz/subtree_coder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "hzio/hz/hz_order.h"

namespace hzio {
namespace {

// An array on the lattice of levels 0..level of `bm`, row-major over `count` lattice samples
// (lattice point q sits at full-resolution coordinates q * D_level), `sb` bytes per sample, every
// byte distinct-ish so a misplaced sample shows.
struct LatticeArray {
  Point count, stride, step;  // samples per axis, row-major strides, full-resolution spacing
  int64_t sb;
  std::vector<uint8_t> bytes;

  LatticeArray(const Bitmask& bm, int level, const Point& n, int64_t sample_bytes) : count(n), sb(sample_bytes) {
    stride = Point(n.dims, 1);
    for (int d = 1; d < n.dims; ++d) stride[d] = stride[d - 1] * n[d - 1];
    step = bm.CumulativeStride(level);
    bytes.resize(static_cast<size_t>(n.Product() * sb));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + i / 251);
  }
  int64_t Index(const Point& q) const {
    int64_t i = 0;
    for (int d = 0; d < q.dims; ++d) i += q[d] * stride[d];
    return i;
  }
  Point Full(const Point& q) const {
    Point p = q;
    for (int d = 0; d < q.dims; ++d) p[d] = q[d] * step[d];
    return p;
  }
};

// hz -> sample, with spans cut at pseudo-random places (a few skipped) to exercise the cursors.
class HzStore {
 public:
  HzStore(int64_t sb, uint64_t seed, bool skips) : sb_(sb), rng_(seed), skips_(skips) {}
  RunResolver Resolver() {
    return [this](uint64_t hz, int64_t count) {
      const int64_t n = std::min<int64_t>(count, 1 + static_cast<int64_t>(rng_() % 37));
      if (skips_ && rng_() % 5 == 0) {
        for (int64_t i = 0; i < n; ++i) skipped_.insert({hz + static_cast<uint64_t>(i), 0});
        return RunSpan{nullptr, n};
      }
      auto& block = spans_[hz];
      block.resize(static_cast<size_t>(n * sb_));
      for (int64_t i = 0; i < n; ++i) index_[hz + static_cast<uint64_t>(i)] = {&block, i};
      return RunSpan{block.data(), n};
    };
  }
  // The sample stored at hz, or null if never handed out or skipped.
  const uint8_t* At(uint64_t hz) const {
    auto it = index_.find(hz);
    return it == index_.end() ? nullptr : it->second.first->data() + it->second.second * sb_;
  }
  bool Skipped(uint64_t hz) const { return skipped_.count(hz) > 0; }
  size_t size() const { return index_.size() + skipped_.size(); }

 private:
  int64_t sb_;
  std::mt19937_64 rng_;
  bool skips_;
  std::map<uint64_t, std::vector<uint8_t>> spans_;
  std::map<uint64_t, std::pair<std::vector<uint8_t>*, int64_t>> index_;
  std::map<uint64_t, int> skipped_;
};

struct Case {
  std::string bitmask;
  int level_below_maxh;  // 0: full resolution
  int64_t sb;
};

// Every subtree of an array of 2x2x.. subtrees is encoded: each sample reaches the hz the bitmask
// gives its full-resolution point (§3.2), every hz of the subtree exactly once.
TEST(SubtreeCoder, EncodePlacesEverySampleAtItsHzAddress) {
  const std::vector<Case> cases = {
      {"V0101", 0, 1},           {"V012012012", 0, 4},     {"V012012012012", 0, 8},   {"V210210210", 0, 24},
      {"V0011222101", 0, 3},     {"V012012012012", 2, 88}, {"V0101010101", 3, 2},     {"V012012012012012", 0, 4},
      {"V2100120120120", 1, 5},  {"V01", 0, 16},
  };
  for (const Case& c : cases) {
    const Bitmask bm = Bitmask::Parse(c.bitmask);
    const int level = bm.maxh() - c.level_below_maxh;
    for (int bits = 0; bits <= std::min(level, 12); bits += std::max(1, level / 4)) {
      SCOPED_TRACE(c.bitmask + " level " + std::to_string(level) + " bits " + std::to_string(bits) + " sb " +
                   std::to_string(c.sb));
      const Point unit(bm.dims(), 1);
      SubtreeCoder probe(bm, level, bits, unit, c.sb);
      // Two subtrees per axis where the lattice has room, else one.
      Point per(bm.dims()), count(bm.dims());
      const Point lattice = [&] {
        Point l(bm.dims());
        const Point s = bm.CumulativeStride(level);
        for (int d = 0; d < bm.dims(); ++d) l[d] = bm.pow2()[d] / s[d];
        return l;
      }();
      for (int d = 0; d < bm.dims(); ++d) {
        per[d] = std::min<int64_t>(2, lattice[d] / probe.extent()[d]);
        count[d] = per[d] * probe.extent()[d];
      }
      LatticeArray a(bm, level, count, c.sb);
      const SubtreeCoder coder(bm, level, bits, a.stride, c.sb);
      HzStore store(c.sb, 11, /*skips=*/false);
      for (int64_t s = 0; s < per.Product(); ++s) {
        Point q0(bm.dims());
        int64_t r = s;
        for (int d = 0; d < bm.dims(); ++d) {
          q0[d] = (r % per[d]) * coder.extent()[d];
          r /= per[d];
        }
        coder.Encode(a.Full(q0), a.bytes.data() + a.Index(q0) * c.sb, store.Resolver());
      }
      ASSERT_EQ(store.size(), static_cast<size_t>(count.Product()));
      for (int64_t i = 0; i < count.Product(); ++i) {
        Point q(bm.dims());
        int64_t r = i;
        for (int d = 0; d < bm.dims(); ++d) {
          q[d] = r % count[d];
          r /= count[d];
        }
        const uint64_t hz = HzFromPoint(bm, a.Full(q));
        ASSERT_EQ(HzLevel(hz) <= level, true);
        const uint8_t* got = store.At(hz);
        ASSERT_NE(got, nullptr) << "hz " << hz << " never written";
        ASSERT_EQ(std::memcmp(got, a.bytes.data() + a.Index(q) * c.sb, static_cast<size_t>(c.sb)), 0)
            << "sample " << q.ToString() << " hz " << hz;
      }
    }
  }
}

// Decode is the inverse, restricted to a clip box: samples inside it come back, samples outside
// and samples of skipped spans are left alone; ForEachNeededRun lists enough to decode the clip.
TEST(SubtreeCoder, DecodeRestoresTheClipAndNeedsOnlyItsRuns) {
  std::mt19937_64 rng(5);
  const std::vector<Case> cases = {{"V012012012012", 0, 4}, {"V0101010101", 0, 8}, {"V210210210210", 2, 24},
                                   {"V0011222101", 0, 3},   {"V012012012012012", 0, 2}};
  for (const Case& c : cases) {
    const Bitmask bm = Bitmask::Parse(c.bitmask);
    const int level = bm.maxh() - c.level_below_maxh;
    for (int bits : {level / 2, level}) {
      SCOPED_TRACE(c.bitmask + " bits " + std::to_string(bits));
      const SubtreeCoder probe(bm, level, bits, Point(bm.dims(), 1), c.sb);
      LatticeArray a(bm, level, probe.extent(), c.sb);
      const SubtreeCoder coder(bm, level, bits, a.stride, c.sb);
      const Point origin(bm.dims());
      HzStore store(c.sb, 3, false);
      coder.Encode(origin, a.bytes.data(), store.Resolver());
      for (int trial = 0; trial < 6; ++trial) {
        Box clip(Point(bm.dims()), coder.extent());
        for (int d = 0; d < bm.dims(); ++d) {
          const int64_t e = coder.extent()[d];
          clip.p1[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(e));
          clip.p2[d] = clip.p1[d] + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(e - clip.p1[d]));
        }
        if (trial == 0) clip = Box(Point(bm.dims()), coder.extent());
        std::map<uint64_t, bool> needed;
        coder.ForEachNeededRun(origin, clip, [&](uint64_t hz, int64_t n) {
          for (int64_t i = 0; i < n; ++i) needed[hz + static_cast<uint64_t>(i)] = true;
        });
        // A source serving only the needed samples, in spans of random length, some skipped.
        std::mt19937_64 cut(static_cast<uint64_t>(trial));
        std::map<uint64_t, bool> skipped;
        std::vector<std::vector<uint8_t>> copies;  // each span's own memory (cursors hold on to it)
        const RunResolver source = [&](uint64_t hz, int64_t count) {
          int64_t n = std::min<int64_t>(count, 1 + static_cast<int64_t>(cut() % 29));
          const bool have = needed.count(hz) > 0;
          int64_t same = 1;
          while (same < n && (needed.count(hz + static_cast<uint64_t>(same)) > 0) == have) ++same;
          n = same;
          if (!have || (trial % 2 == 1 && cut() % 7 == 0)) {
            for (int64_t i = 0; i < n; ++i) skipped[hz + static_cast<uint64_t>(i)] = true;
            return RunSpan{nullptr, n};
          }
          std::vector<uint8_t>& copy = copies.emplace_back(static_cast<size_t>(n * c.sb));
          for (int64_t i = 0; i < n; ++i)
            std::memcpy(copy.data() + i * c.sb, store.At(hz + static_cast<uint64_t>(i)), static_cast<size_t>(c.sb));
          return RunSpan{copy.data(), n};
        };
        std::vector<uint8_t> out(a.bytes.size(), 0xEE);
        coder.Decode(origin, out.data(), clip, source);
        for (int64_t i = 0; i < coder.extent().Product(); ++i) {
          Point q(bm.dims());
          int64_t r = i;
          for (int d = 0; d < bm.dims(); ++d) {
            q[d] = r % coder.extent()[d];
            r /= coder.extent()[d];
          }
          const uint64_t hz = HzFromPoint(bm, a.Full(q));
          const uint8_t* got = out.data() + a.Index(q) * c.sb;
          if (clip.Contains(q) && !skipped.count(hz)) {
            ASSERT_EQ(std::memcmp(got, a.bytes.data() + a.Index(q) * c.sb, static_cast<size_t>(c.sb)), 0)
                << "sample " << q.ToString() << " clip " << clip.ToRangesString();
          } else {
            for (int64_t b = 0; b < c.sb; ++b) ASSERT_EQ(got[b], 0xEE) << "sample " << q.ToString() << " was written";
          }
          if (clip.Contains(q)) ASSERT_TRUE(needed.count(hz)) << "hz " << hz << " of the clip is not listed as needed";
        }
      }
    }
  }
}

// A tile whose rows are contiguous and whole cache lines is encoded through a copy of the rows the
// range needs (of a slab of tiles side by side along x, where the subtree has several); an array
// whose samples sit every other slot (a field interleaved with another) is encoded in place. Both
// must hand out the same samples at the same addresses, for every range (a writer's round: one
// level, a level and a half, the rest) — 4- and 8-byte samples with rows of 64 and 256 bytes, in
// one tile and in slabs of 4 tiles (64^3 float32, 256^2 float64), and 2-byte samples whose 16-byte
// rows are never copied.
TEST(SubtreeCoder, StagedAndInPlaceEncodingsAgree) {
  for (const Case& c : std::vector<Case>{{"V012012012012", 0, 4}, {"V0101010101", 0, 8}, {"V210210210", 0, 2},
                                         {"V012012012012012012", 0, 4}, {"V0101010101010101", 0, 8}}) {
    SCOPED_TRACE(c.bitmask);
    const Bitmask bm = Bitmask::Parse(c.bitmask);
    const int level = bm.maxh();
    const SubtreeCoder probe(bm, level, level, Point(bm.dims(), 1), c.sb);
    const LatticeArray dense(bm, level, probe.extent(), c.sb);
    const int64_t samples = dense.count.Product();
    std::vector<uint8_t> sparse(static_cast<size_t>(2 * samples * c.sb), 0x5A);
    for (int64_t i = 0; i < samples; ++i)
      std::memcpy(sparse.data() + 2 * i * c.sb, dense.bytes.data() + i * c.sb, static_cast<size_t>(c.sb));
    Point gapped = dense.stride;
    for (int d = 0; d < bm.dims(); ++d) gapped[d] *= 2;
    const SubtreeCoder dense_coder(bm, level, level, dense.stride, c.sb), sparse_coder(bm, level, level, gapped, c.sb);
    const uint64_t n = uint64_t{1} << level;
    for (const HzRange range : {HzRange{}, HzRange{n / 2, n}, HzRange{n / 8, n * 3 / 8}, HzRange{0, n / 4}}) {
      SCOPED_TRACE("range [" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")");
      std::vector<uint8_t> from_dense(static_cast<size_t>(n * c.sb), 0xEE), from_sparse = from_dense;
      const auto into = [&](std::vector<uint8_t>& out) -> RunResolver {
        return [&out, sb = c.sb](uint64_t hz, int64_t count) { return RunSpan{out.data() + hz * sb, count}; };
      };
      const Point origin(bm.dims());
      dense_coder.Encode(origin, dense.bytes.data(), into(from_dense), range);
      sparse_coder.Encode(origin, sparse.data(), into(from_sparse), range);
      ASSERT_EQ(from_dense, from_sparse);
      for (uint64_t hz = 0; hz < n; ++hz) {  // inside the range every sample came, outside none
        const bool inside = hz >= range.begin && hz < range.end;
        const bool untouched = from_dense[hz * c.sb] == 0xEE && from_dense[hz * c.sb + c.sb - 1] == 0xEE;
        if (!inside) ASSERT_TRUE(untouched) << "hz " << hz;
      }
    }
  }
}

TEST(SubtreeCoder, FittingBitsAndRuns) {
  const Bitmask bm = Bitmask::Parse("V012012012012");  // 16^3
  EXPECT_EQ(SubtreeCoder::FittingBits(bm, 12, Point{16, 16, 16}), 12);
  EXPECT_EQ(SubtreeCoder::FittingBits(bm, 12, Point{8, 8, 8}), 9);
  EXPECT_EQ(SubtreeCoder::FittingBits(bm, 12, Point{8, 16, 16}), 11);  // x is split first (position 1)
  EXPECT_EQ(SubtreeCoder::FittingBits(bm, 12, Point{16, 16, 12}), 9);  // 12 holds 8 along z (a suffix)
  const SubtreeCoder c(bm, 12, 9, Point{16, 256, 4096}, 4);
  EXPECT_EQ(c.extent(), (Point{8, 8, 8}));
  const uint64_t z = c.SubtreeZ(Point{8, 0, 0});
  EXPECT_EQ(z, bm.Interleave(Point{8, 0, 0}));
  EXPECT_EQ(c.RootHz(z), HzFromPoint(bm, Point{8, 0, 0}));
  EXPECT_EQ(c.RunStart(z, 0), HzFromZ(z + 1, 12));  // the subtree's first finest sample
  EXPECT_EQ(c.RunStart(z, 0), HzFromPoint(bm, Point{8, 0, 1}));  // position 12 splits z
  EXPECT_EQ(c.RunLength(0), 256);
}

}  // namespace
}  // namespace hzio
