// ReadInSlabs (access/slab_reader.h): the slabs of any query, concatenated, are exactly the
// bytes of the same query read whole, for every level, sub-boxes and slab sizes down to one row;
// and the query level's blocks are fetched once each, even when they are taller than the slab
// size asked for.
#include "hzio/access/slab_reader.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <mutex>

#include "support/test_support.h"

namespace hzio {
namespace {

// Forwards to another source, counting how often each block is fetched.
class CountingSource : public BlockSource {
 public:
  explicit CountingSource(std::shared_ptr<BlockSource> inner)
      : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()), inner_(std::move(inner)) {}
  std::string Version() const override { return inner_->Version(); }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override {
    Count(keys);
    inner_->Fetch(keys, sink);
  }
  void FetchInto(std::span<const BlockKey> keys, std::span<uint8_t* const> raw_targets, const BlockSink& sink) override {
    Count(keys);
    inner_->FetchInto(keys, raw_targets, sink);
  }
  std::map<uint64_t, int> fetches;

 private:
  void Count(std::span<const BlockKey> keys) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const BlockKey& k : keys) ++fetches[k.block];
  }
  std::shared_ptr<BlockSource> inner_;
  std::mutex mutex_;
};

std::vector<uint8_t> Slabbed(Dataset& ds, const Dataset::Resolved& r, int64_t slab_bytes, int64_t max_slab_bytes) {
  std::vector<uint8_t> out;
  ReadInSlabs(ds, r, slab_bytes, max_slab_bytes, [&](const uint8_t* data, int64_t bytes) { out.insert(out.end(), data, data + bytes); });
  return out;
}

TEST(SlabReader, SlabsConcatenatedEqualTheWholeQuery) {
  testing::TempDir dir;
  testing::SyntheticLayout layout;
  layout.field = "v float32";
  layout.bits_per_block = 8;
  auto ds = OpenDataset(testing::WriteSyntheticDataset(dir, 32, 16, 24, layout));
  for (int level : {ds->header().maxh(), ds->header().maxh() - 1, ds->header().maxh() - 4, 3}) {
    for (const char* box : {"0:32,0:16,0:24", "3:29,1:15,5:22", "0:32,0:16,7:8"}) {
      if (std::string(box) == "0:32,0:16,7:8" && level < ds->header().maxh()) continue;  // one plane: no coarse samples
      BoxQuery q;
      q.level = level;
      q.box = Box::ParseRanges(box);
      const Dataset::Resolved r = ds->Resolve(q);
      const BoxResult whole = ds->Read(q);
      const std::vector<uint8_t> want(whole.data.data(), whole.data.data() + whole.data.ByteSize());
      for (int64_t slab : {int64_t{1}, int64_t{200}, int64_t{4096}, int64_t{1} << 30})
        ASSERT_EQ(Slabbed(*ds, r, slab, 4 * slab), want) << "level " << level << " box " << box << " slab " << slab;
    }
  }
}

TEST(SlabReader, QueryLevelBlocksAreFetchedOnceEvenWhenTallerThanASlab) {
  testing::TempDir dir;
  testing::SyntheticLayout layout;
  layout.field = "v float32";
  layout.bits_per_block = 10;
  auto opened = OpenDataset(testing::WriteSyntheticDataset(dir, 64, 64, 64, layout));
  auto counting = std::make_shared<CountingSource>(opened->block_source());
  Dataset ds(counting, "counted", OpenOptions{});
  const int h = ds.header().maxh(), bpb = ds.header().bits_per_block;
  const Dataset::Resolved r = ds.Resolve(BoxQuery{});
  const Grid block = ds.layout().BlockGrid(uint64_t{1} << (h - bpb - 1));
  const int64_t block_rows = block.count[2] * block.stride[2];
  const int64_t plane = 64 * 64 * 4;
  ASSERT_GT(block_rows, 2) << "the test needs level-h blocks several planes high";
  // Slabs asked for 2 planes and allowed to grow to 32: the level-h blocks are block_rows high.
  ASSERT_LE(block_rows, 32);
  const std::vector<uint8_t> got = Slabbed(ds, r, 2 * plane, 32 * plane);
  const BoxResult whole = opened->Read(BoxQuery{});
  ASSERT_EQ(got, std::vector<uint8_t>(whole.data.data(), whole.data.data() + whole.data.ByteSize()));
  int level_h_blocks = 0;
  for (const auto& [b, n] : counting->fetches) {
    if (b < (uint64_t{1} << (h - bpb - 1))) continue;  // coarser levels: once per slab they span
    ++level_h_blocks;
    EXPECT_EQ(n, 1) << "block " << b << " of level " << h;
  }
  EXPECT_EQ(level_h_blocks, 1 << (h - bpb - 1));
}

}  // namespace
}  // namespace hzio
