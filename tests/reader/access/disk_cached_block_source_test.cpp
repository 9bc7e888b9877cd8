// The disk-cache decorator (access/disk_cached_block_source.h) over a real classic source: blocks
// come from the disk the second time (also to a new process's source), absent blocks too, a new
// dataset version misses, a damaged entry is fetched again, and an unreachable source says what
// the cache held.
#include "hzio/access/disk_cached_block_source.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>

#include "hzio/access/box_assembler.h"
#include "hzio/access/dataset.h"
#include "support/test_support.h"

namespace hzio {
namespace {

// Counts the keys that reach the wrapped source; can pretend to be unreachable.
class CountingSource : public BlockSource {
 public:
  CountingSource(std::shared_ptr<BlockSource> inner, std::string version)
      : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()),
        inner_(std::move(inner)),
        version_(std::move(version)) {}
  std::string Version() const override { return version_; }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override {
    fetched += static_cast<int>(keys.size());
    if (unreachable) throw Error(ErrorCode::kUnavailable, "http://store/x: Connection refused");
    inner_->Fetch(keys, sink);
  }
  std::atomic<int> fetched{0};
  bool unreachable = false;

 private:
  std::shared_ptr<BlockSource> inner_;
  std::string version_;
};

struct Decoded {
  bool present = false;
  std::vector<uint8_t> bytes;
};

std::vector<Decoded> FetchAll(BlockSource& source, const std::vector<BlockKey>& keys) {
  std::vector<Decoded> out(keys.size());
  source.Fetch(keys, [&](size_t i, EncodedBlock&& b) {
    if (!b.present) return;
    out[i].present = true;
    out[i].bytes.resize(source.DecodedBlockBytes(keys[i].field));
    DecodeBlock(source, keys[i].field, keys[i].block, b, out[i].bytes.data());
  });
  return out;
}

class DiskCachedSource : public ::testing::Test {
 protected:
  void SetUp() override {
    classic_ = OpenDataset(testing::GoldenPath("lz/visus.idx"))->block_source();
    for (uint64_t b = 0; b < classic_->layout().total_blocks(); ++b) keys_.push_back(BlockKey{0, 0, b});
    keys_.push_back(BlockKey{0, 0, 0});  // twice in one batch
    want_ = FetchAll(*classic_, keys_);
  }
  std::shared_ptr<CountingSource> Counting(const std::string& version = "v1") {
    return std::make_shared<CountingSource>(classic_, version);
  }
  int Distinct() const { return static_cast<int>(keys_.size()) - 1; }  // block 0 is asked twice
  std::shared_ptr<DiskCache> Cache() { return std::make_shared<DiskCache>(dir_.File("cache"), 1 << 30); }
  void ExpectSame(const std::vector<Decoded>& got) {
    ASSERT_EQ(got.size(), want_.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].present, want_[i].present) << i;
      EXPECT_EQ(got[i].bytes, want_[i].bytes) << i;
    }
  }
  testing::TempDir dir_;
  std::shared_ptr<BlockSource> classic_;
  std::vector<BlockKey> keys_;
  std::vector<Decoded> want_;
};

TEST_F(DiskCachedSource, SecondReadComesFromDiskAlsoInANewSource) {
  auto first = Counting();
  DiskCachedBlockSource cached(first, Cache(), "http://store/lz/visus.idx");
  ExpectSame(FetchAll(cached, keys_));
  EXPECT_EQ(first->fetched.load(), Distinct());  // each block once
  ExpectSame(FetchAll(cached, keys_));
  EXPECT_EQ(first->fetched.load(), Distinct());  // nothing more reached the store
  // Another process (a new cache object on the same folder, a new source) after a restart.
  auto second = Counting();
  DiskCachedBlockSource again(second, Cache(), "http://store/lz/visus.idx");
  ExpectSame(FetchAll(again, keys_));
  EXPECT_EQ(second->fetched.load(), 0);
  int absent = 0;
  for (const Decoded& d : want_) absent += !d.present;
  EXPECT_GT(absent, 0);  // absent blocks were served from the cache too
}

TEST_F(DiskCachedSource, NewVersionDoesNotSeeOldBlocks) {
  DiskCachedBlockSource v1(Counting("v1"), Cache(), "ds");
  FetchAll(v1, keys_);
  auto inner = Counting("v2");
  DiskCachedBlockSource v2(inner, Cache(), "ds");
  FetchAll(v2, keys_);
  EXPECT_EQ(inner->fetched.load(), Distinct());
  EXPECT_EQ(v1.Version(), "v1");
  EXPECT_EQ(v2.Version(), "v2");
}

TEST_F(DiskCachedSource, TruncatedEntryIsFetchedAgain) {
  auto inner = Counting();
  DiskCachedBlockSource cached(inner, Cache(), "ds");
  FetchAll(cached, keys_);
  const int before = inner->fetched;
  const std::string path = cached.cache().EntryPath(cached.EntryKey(keys_[0]));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  ExpectSame(FetchAll(cached, keys_));
  EXPECT_EQ(inner->fetched.load(), before + 1);  // that block only (asked twice, fetched once)
  EXPECT_EQ(cached.cache().stats().damaged, 1u);
}

TEST_F(DiskCachedSource, OfflineReadsWhatIsCachedAndSaysSoForTheRest) {
  auto inner = Counting();
  DiskCachedBlockSource cached(inner, Cache(), "ds");
  std::vector<BlockKey> some(keys_.begin(), keys_.begin() + 2);
  FetchAll(cached, some);
  inner->unreachable = true;
  const std::vector<Decoded> got = FetchAll(cached, some);  // all cached: no store needed
  EXPECT_EQ(got[0].bytes, want_[0].bytes);
  EXPECT_HZIO_ERROR(FetchAll(cached, keys_), ErrorCode::kUnavailable, "Connection refused",
                    "were in the disk cache " + cached.cache().dir());
}

TEST_F(DiskCachedSource, AssemblesTheSameBoxes) {
  DiskCachedBlockSource cached(Counting(), Cache(), "ds");
  const IdxHeader& h = classic_->header();
  const Grid grid = classic_->layout().QueryGrid(h.box, LevelRange{0, h.maxh()});
  const size_t bytes = static_cast<size_t>(h.fields[0].dtype.BytesFor(grid.NumSamples()));
  std::vector<uint8_t> a(bytes), b(bytes), c(bytes);
  AssembleBox(*classic_, BoxRequest{0, 0, LevelRange{0, h.maxh()}, grid}, a.data());
  AssembleBox(cached, BoxRequest{0, 0, LevelRange{0, h.maxh()}, grid}, b.data());
  AssembleBox(cached, BoxRequest{0, 0, LevelRange{0, h.maxh()}, grid}, c.data());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

}  // namespace
}  // namespace hzio
