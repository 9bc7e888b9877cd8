// Property test: for random bitmasks (1-D to 3-D), random bitsperblock/blocksperfile, non-power-of-
// two boxes with non-zero origins, both layouts and every codec, writing an array and reading it
// back at every level equals the source sampled on the §3.4 grid — for the whole box and sub-boxes,
// read on all cores and on the caller's thread alone.
#include <gtest/gtest.h>

#include <random>

#include "support/test_support.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/hz/hz_order.h"

namespace hzio {
namespace {

struct Case {
  IdxHeader header;
  std::vector<int32_t> source;  // row-major over the dataset box
};

int32_t Value(const Point& p) { return static_cast<int32_t>(1 + p[0] + 1000 * p[1] + 1000000 * p[2]); }

Case RandomCase(std::mt19937_64& rng) {
  Case c;
  const int dims = 1 + static_cast<int>(rng() % 3);
  Point p1(dims), p2(dims);
  for (int d = 0; d < dims; ++d) {
    const int64_t extent = 1 + static_cast<int64_t>(rng() % (dims == 1 ? 200 : dims == 2 ? 40 : 14));
    p1[d] = rng() % 3 == 0 ? static_cast<int64_t>(rng() % 9) : 0;
    p2[d] = p1[d] + extent;
  }
  if (p2[dims - 1] == 1) p2[dims - 1] = 2;  // a trailing unit axis would drop out of the bitmask
  c.header.box = Box{p1, p2};
  // A random bitmask covering the box: shuffle each axis's bits into a random order.
  std::string pattern;
  for (int d = 0; d < dims; ++d) {
    int64_t n = 1;
    while (n < p2[d]) { n *= 2; pattern += static_cast<char>('0' + d); }
  }
  std::shuffle(pattern.begin(), pattern.end(), rng);
  c.header.bitmask = Bitmask::Parse("V" + pattern);
  const int maxh = c.header.bitmask.maxh();
  c.header.bits_per_block = 1 + static_cast<int>(rng() % static_cast<uint64_t>(maxh));
  c.header.blocks_per_file = 1 + static_cast<int64_t>(rng() % 5);
  Field f = Field::Parse("v int32", 6);
  f.hz_layout = rng() % 2 == 0;
  const char* codecs[] = {"", "zip", "lz4"};
  f.compression = codecs[rng() % 3];
  f.default_value = -7;
  c.header.fields.push_back(f);
  c.header.filename_template = "./data/%02x/%04x.bin";
  const Box& b = c.header.box;
  Point size = b.Size();
  c.source.resize(static_cast<size_t>(size.Product()));
  for (int64_t i = 0; i < size.Product(); ++i) {
    Point p(dims);
    int64_t r = i;
    for (int d = 0; d < dims; ++d) { p[d] = b.p1[d] + r % size[d]; r /= size[d]; }
    c.source[static_cast<size_t>(i)] = Value(p);
  }
  return c;
}

// The expected result: the source at every grid point inside the dataset box, default elsewhere.
void ExpectMatches(const Case& c, const BoxResult& r, const std::string& what) {
  const Grid& g = r.grid;
  const int32_t* got = reinterpret_cast<const int32_t*>(r.data.data());
  for (int64_t i = 0; i < g.NumSamples(); ++i) {
    Point p(g.dims());
    int64_t k = i;
    for (int d = 0; d < g.dims(); ++d) { p[d] = g.origin[d] + (k % g.count[d]) * g.stride[d]; k /= g.count[d]; }
    const int32_t want = c.header.box.Contains(p) ? Value(p) : -7;
    ASSERT_EQ(got[i], want) << what << " at " << p.ToString();
  }
}

TEST(RoundTripProperty, WriteThenReadEveryLevelEqualsSampledSource) {
  std::mt19937_64 rng(2024);
  for (int trial = 0; trial < 60; ++trial) {
    testing::TempDir dir;
    Case c = RandomCase(rng);
    const std::string path = dir.File("t.idx");
    {
      DatasetWriter w(path, c.header);
      // Half the cases write in slabs along the slowest axis (the streaming path).
      const Box& b = c.header.box;
      const int slow = b.dims() - 1;
      if (trial % 2 == 0) {
        w.Write(0, 0, b, reinterpret_cast<const uint8_t*>(c.source.data()));
      } else {
        const int64_t slab_samples = b.Size().Product() / b.Size()[slow];
        for (int64_t s = b.p1[slow]; s < b.p2[slow]; s += 3) {
          Box slab = b;
          slab.p1[slow] = s;
          slab.p2[slow] = std::min(b.p2[slow], s + 3);
          w.Write(0, 0, slab, reinterpret_cast<const uint8_t*>(c.source.data() + (s - b.p1[slow]) * slab_samples));
        }
      }
      w.Finish();
    }
    auto ds = OpenDataset(path);
    // The same files read on the caller's thread only (tasks run in order, not on the pool).
    OpenOptions one_thread;
    one_thread.threads = 1;
    auto once = OpenDataset(path, one_thread);
    const std::string what = c.header.bitmask.text() + " bpb " + std::to_string(c.header.bits_per_block) + " box " +
                             c.header.box.ToRangesString() + " " + c.header.fields[0].compression +
                             (c.header.fields[0].hz_layout ? " hz" : " rm");
    for (int h = 0; h <= ds->header().maxh(); ++h) {
      BoxQuery q;
      q.level = h;
      for (Dataset* reader : {ds.get(), once.get()}) {
        try {
          ExpectMatches(c, reader->Read(q), what + " level " + std::to_string(h) + (reader == ds.get() ? "" : " one thread"));
        } catch (const Error& e) {
          // A box can hold no sample at a coarse level only if its origin is off the lattice.
          EXPECT_EQ(e.code(), ErrorCode::kOutOfRange) << e.what();
        }
      }
      // A random sub-box.
      Box sub = c.header.box;
      for (int d = 0; d < sub.dims(); ++d) {
        const int64_t n = sub.p2[d] - sub.p1[d];
        sub.p1[d] += static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
        sub.p2[d] = sub.p1[d] + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(c.header.box.p2[d] - sub.p1[d]));
      }
      q.box = sub;
      for (Dataset* reader : {ds.get(), once.get()}) {
        try {
          ExpectMatches(c, reader->Read(q), what + " sub " + sub.ToRangesString() + " level " + std::to_string(h) +
                                               (reader == ds.get() ? "" : " one thread"));
        } catch (const Error& e) {
          EXPECT_EQ(e.code(), ErrorCode::kOutOfRange) << e.what();
        }
      }
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace hzio
