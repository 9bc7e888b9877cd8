// One conformance suite for every BlockSource (TEAM.md contract 1): each source runs the same
// queries over the datasets OpenVisus wrote (../shared/testdata/idx-golden) and must give the same
// results, checked against the arrays those datasets were written from (not against another
// source). A new source joins with one entry in Sources() below.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "hzio/access/block_cache.h"
#include "hzio/access/box_assembler.h"
#include "hzio/access/cached_block_source.h"
#include "hzio/access/dataset.h"
#include "support/test_support.h"

#ifdef HZIO_CONFORMANCE_WITH_SERVER
#include "http/server.h"
#endif
#ifdef HZIO_CONFORMANCE_WITH_STORES
#include "support/store_servers.h"
#endif

namespace hzio {
namespace {

struct GoldenCase {
  std::string name;    // as served
  std::string idx;     // under the golden folder
  std::string source;  // the array it was written from ("" = the tiny 4x4 of value 10y+x)
};

const std::vector<GoldenCase>& Goldens() {
  static const std::vector<GoldenCase> cases = {
      {"rgb", "rgb_hz_raw/visus.idx", "rgb_source_uint8x3_y60_x100.raw"},
      {"rgbzip", "rgb_hz_zip/visus.idx", "rgb_source_uint8x3_y60_x100.raw"},
      {"f32", "f32/visus.idx", "f32_source_float32_z4_y8_x16.raw"},
      {"lz", "lz/visus.idx", "lz_source_int16_y20_x30.raw"},
      {"hz", "tiny/hz.idx", ""},
      {"rm", "tiny/rm.idx", ""}};
  return cases;
}

// The source array of a golden dataset, row-major over its box (x fastest).
std::vector<uint8_t> SourceArray(const GoldenCase& g) {
  if (!g.source.empty()) return testing::ReadBytes(testing::GoldenPath(g.source));
  std::vector<uint8_t> v(16);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) v[static_cast<size_t>(4 * y + x)] = static_cast<uint8_t>(10 * y + x);
  return v;
}

#ifdef HZIO_CONFORMANCE_WITH_SERVER
// A real hzio server, in this process, serving every golden dataset on a free loopback port.
class GoldenServer {
 public:
  static GoldenServer& Get() {
    static GoldenServer server;
    return server;
  }
  std::string Url(const std::string& name) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/mod_visus?dataset=" + name;
  }

 private:
  GoldenServer() {
    std::vector<server::DatasetEntry> entries;
    for (const GoldenCase& g : Goldens()) entries.push_back({g.name, testing::GoldenPath(g.idx), ""});
    auto context = std::make_shared<server::ServerContext>(server::DatasetRegistry::Open(entries, OpenOptions{}),
                                                           server::ServerOptions{});
    http_ = std::make_unique<server::HttpServer>(context);
    port_ = http_->Bind("127.0.0.1", 0);
    thread_ = std::thread([this] { http_->Run(false); });
  }
  ~GoldenServer() {
    http_->Stop();
    thread_.join();
  }
  std::unique_ptr<server::HttpServer> http_;
  std::thread thread_;
  int port_ = 0;
};
#endif

#ifdef HZIO_CONFORMANCE_WITH_STORES
// The golden datasets on a real web server (nginx: Range requests on the block files) and in a
// real S3 store (MinIO, SigV4), laid out as their folders are.
class GoldenStores {
 public:
  static GoldenStores& Get() {
    static GoldenStores stores;
    return stores;
  }
  std::string HttpUrl(const GoldenCase& g) const { return nginx_.Url(g.idx); }
  std::string S3Url(const GoldenCase& g) const { return minio_.DatasetUrl("golden", g.idx); }
  std::string cache_dir() const { return cache_.File("cache"); }

 private:
  GoldenStores() : nginx_(testing::GoldenPath("")) {
    minio_.CreateBucket("golden");
    minio_.UploadFolder(testing::GoldenPath(""), "golden", "");
  }
  testing::NginxServer nginx_;
  testing::MinioServer minio_;
  testing::TempDir cache_;
};

OpenOptions WithCache(const std::string& dir) {
  OpenOptions o;
  o.cache_dir = dir;
  o.memory_cache = false;  // what is read must come from the store or the disk cache
  return o;
}
#endif

struct SourceKind {
  std::string name;
  std::function<std::shared_ptr<BlockSource>(const GoldenCase&)> open;
};

void PrintTo(const SourceKind& kind, std::ostream* os) { *os << kind.name; }

std::shared_ptr<BlockSource> Classic(const GoldenCase& g) {
  return OpenDataset(testing::GoldenPath(g.idx))->block_source();
}

// The ARCO copy of a golden dataset (one file per block, the same payloads), made once per run so
// that two opens are the same version.
std::shared_ptr<BlockSource> Arco(const GoldenCase& g) {
  static testing::TempDir dir;
  static std::map<std::string, std::string> made;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  auto it = made.find(g.name);
  if (it == made.end()) it = made.emplace(g.name, testing::ArcoCopyOfGolden(dir, g.idx, g.name)).first;
  return OpenDataset(it->second)->block_source();
}

// Every block source, each a line: the suite runs them all.
std::vector<SourceKind> Sources() {
  std::vector<SourceKind> kinds = {
      {"classic", Classic},
      {"classic_cached",
       [](const GoldenCase& g) -> std::shared_ptr<BlockSource> {
         return std::make_shared<CachedBlockSource>(Classic(g), std::make_shared<BlockCache>(int64_t{64} << 20));
       }},
      {"arco", Arco},
      {"arco_cached",
       [](const GoldenCase& g) -> std::shared_ptr<BlockSource> {
         return std::make_shared<CachedBlockSource>(Arco(g), std::make_shared<BlockCache>(int64_t{64} << 20));
       }},
  };
#ifdef HZIO_CONFORMANCE_WITH_STORES
  kinds.push_back({"http_ranges", [](const GoldenCase& g) {
                     return OpenDataset(GoldenStores::Get().HttpUrl(g), WithCache(""))->block_source();
                   }});
  kinds.push_back({"s3", [](const GoldenCase& g) {
                     return OpenDataset(GoldenStores::Get().S3Url(g), WithCache(""))->block_source();
                   }});
  // Every open after the first of a dataset finds its blocks in the disk cache.
  kinds.push_back({"s3_disk_cached", [](const GoldenCase& g) {
                     return OpenDataset(GoldenStores::Get().S3Url(g), WithCache(GoldenStores::Get().cache_dir()))
                         ->block_source();
                   }});
#endif
#ifdef HZIO_CONFORMANCE_WITH_SERVER
  kinds.push_back({"mod_visus", [](const GoldenCase& g) {
                     return OpenDataset(GoldenServer::Get().Url(g.name))->block_source();
                   }});
  kinds.push_back({"mod_visus_cached", [](const GoldenCase& g) {
                     return OpenDataset(GoldenServer::Get().Url(g.name) + "&cached=1")->block_source();
                   }});
#endif
  return kinds;
}

class BlockSourceConformance : public ::testing::TestWithParam<SourceKind> {};

// Calls fn(sample position, expected bytes) for every sample of `grid` inside the dataset box,
// with its offset in a row-major array over the grid.
void ForEachInBox(const IdxHeader& h, const Grid& grid, const std::vector<uint8_t>& source,
                  const std::function<void(int64_t index, const uint8_t* want)>& fn) {
  const int64_t sb = h.fields[0].dtype.SampleBytes();
  const Point size = h.box.Size();
  const int n = grid.dims();
  Point k(n);
  for (int64_t index = 0; index < grid.NumSamples(); ++index) {
    Point p(n);
    for (int d = 0; d < n; ++d) p[d] = grid.origin[d] + k[d] * grid.stride[d];
    if (h.box.Contains(p)) {
      int64_t at = 0;
      for (int d = n - 1; d >= 0; --d) at = at * size[d] + (p[d] - h.box.p1[d]);
      fn(index, source.data() + at * sb);
    }
    for (int d = 0; d < n && ++k[d] == grid.count[d]; ++d) k[d] = 0;
  }
}

TEST_P(BlockSourceConformance, EveryBlockAsStoredOncePerKey) {
  for (const GoldenCase& g : Goldens()) {
    std::shared_ptr<BlockSource> source = GetParam().open(g);
    const IdxHeader& h = source->header();
    const BlockLayout& layout = source->layout();
    const std::vector<uint8_t> array = SourceArray(g);
    const int64_t sb = h.fields[0].dtype.SampleBytes();
    // Every block, last first, block 0 twice: one batch.
    std::vector<BlockKey> keys;
    for (uint64_t b = layout.total_blocks(); b-- > 0;) keys.push_back(BlockKey{0, h.time.Default(), b});
    keys.push_back(BlockKey{0, h.time.Default(), 0});
    std::vector<std::atomic<int>> calls(keys.size());
    std::vector<std::vector<uint8_t>> decoded(keys.size());
    std::vector<char> present(keys.size(), 0), row_major(keys.size(), 0);
    source->Fetch(keys, [&](size_t i, EncodedBlock&& b) {
      ++calls[i];
      if (!b.present) return;
      present[i] = 1;
      row_major[i] = b.row_major;
      decoded[i].resize(source->DecodedBlockBytes(0));
      DecodeBlock(*source, 0, keys[i].block, b, decoded[i].data());
    });
    int present_blocks = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(calls[i].load(), 1) << g.name << " key " << i;
      const uint64_t id = keys[i].block;
      const Grid grid = layout.BlockGrid(id);
      AxisCopy plan[kMaxDims];
      // §4.6: OpenVisus wrote every block holding a sample of the box, and only those.
      ASSERT_EQ(static_cast<bool>(present[i]), PlanGridCopy(grid, grid, h.box, plan)) << g.name << " block " << id;
      if (!present[i]) continue;
      ++present_blocks;
      const std::vector<uint32_t>& to_hz = layout.RowMajorToHz(layout.BlockLevel(id));
      ForEachInBox(h, grid, array, [&](int64_t r, const uint8_t* want) {
        const int64_t at = row_major[i] ? r : to_hz[static_cast<size_t>(r)];
        ASSERT_EQ(0, std::memcmp(decoded[i].data() + at * sb, want, static_cast<size_t>(sb)))
            << g.name << " block " << id << " sample " << r;
      });
    }
    EXPECT_GT(present_blocks, 0) << g.name;
  }
}

TEST_P(BlockSourceConformance, BoxesAtEveryLevelAssemble) {
  for (const GoldenCase& g : Goldens()) {
    std::shared_ptr<BlockSource> source = GetParam().open(g);
    const IdxHeader& h = source->header();
    const std::vector<uint8_t> array = SourceArray(g);
    const int64_t sb = h.fields[0].dtype.SampleBytes();
    Box inner = h.box;
    for (int d = 0; d < h.dims(); ++d) {
      const int64_t size = h.box.p2[d] - h.box.p1[d];
      inner.p1[d] = h.box.p1[d] + size / 4;
      inner.p2[d] = std::max(inner.p1[d] + 1, h.box.p2[d] - size / 5);
    }
    int checked = 0;
    for (const Box& box : {h.box, inner})
      for (int level = 0; level <= h.maxh(); ++level)
        for (const bool only : {false, true}) {
          const LevelRange levels{only ? level : 0, level};
          Grid grid;
          try {
            grid = source->layout().QueryGrid(box, levels);
          } catch (const Error& e) {
            ASSERT_EQ(e.code(), ErrorCode::kOutOfRange) << e.what();  // no sample of the level here
            continue;
          }
          std::vector<uint8_t> out(static_cast<size_t>(grid.NumSamples() * sb));
          AssembleBox(*source, BoxRequest{0, h.time.Default(), levels, grid}, out.data());
          ForEachInBox(h, grid, array, [&](int64_t r, const uint8_t* want) {
            ASSERT_EQ(0, std::memcmp(out.data() + r * sb, want, static_cast<size_t>(sb)))
                << g.name << " box " << box.ToRangesString() << " level " << level << " only " << only << " sample " << r;
          });
          ++checked;
        }
    EXPECT_GT(checked, 2 * h.maxh()) << g.name;
  }
}

TEST_P(BlockSourceConformance, KeysOutsideTheHeaderAreErrors) {
  std::shared_ptr<BlockSource> source = GetParam().open(Goldens()[0]);
  const uint64_t total = source->layout().total_blocks();
  const auto nothing = [](size_t, EncodedBlock&&) {};
  const BlockKey beyond{0, 0, total};
  EXPECT_HZIO_ERROR(source->Fetch({&beyond, 1}, nothing), ErrorCode::kOutOfRange,
                    "block " + std::to_string(total) + " is beyond the last block");
  const BlockKey field{7, 0, 0};
  EXPECT_HZIO_ERROR(source->Fetch({&field, 1}, nothing), ErrorCode::kNotFound, "no field index 7");
}

TEST_P(BlockSourceConformance, VersionIsStable) {
  std::shared_ptr<BlockSource> source = GetParam().open(Goldens()[2]);
  EXPECT_FALSE(source->Version().empty());
  EXPECT_EQ(source->Version(), source->Version());
  EXPECT_EQ(source->Version(), GetParam().open(Goldens()[2])->Version());
  EXPECT_NE(source->Version(), GetParam().open(Goldens()[3])->Version());
}

INSTANTIATE_TEST_SUITE_P(AllSources, BlockSourceConformance, ::testing::ValuesIn(Sources()),
                         [](const ::testing::TestParamInfo<SourceKind>& info) { return info.param.name; });

}  // namespace
}  // namespace hzio
