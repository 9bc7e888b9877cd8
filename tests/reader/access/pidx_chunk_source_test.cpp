// PidxChunkSource (access/pidx_chunk_source.h): the presented blocks of PIDX's chunked golden
// dataset (shared/testdata/pidx-golden/s3dchunk_n2), built from its chunk records, hold exactly
// the README's formula at every sample of their §4.1 lattice, whatever the batch size and threading;
// FetchInto builds into the caller's memory; absent block files give absent blocks.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "support/test_support.h"
#include "hzio/access/pidx_chunk_source.h"
#include "hzio/format/idx_header.h"
#include "hzio/hz/block_layout.h"

namespace hzio {
namespace {

using testing::ReadText;
using testing::TempDir;

const std::string kName = "s3dchunk_n2";

std::string Golden(const std::string& rel) {
  return std::string(HZIO_SOURCE_DIR) + "/../shared/testdata/pidx-golden/" + rel;
}

struct Opened {
  std::shared_ptr<const IdxHeader> header;
  std::shared_ptr<const BlockLayout> layout;
  std::shared_ptr<PidxChunkSource> blocks;
};

Opened Open(const std::string& idx, int threads) {
  Opened o;
  o.header = std::make_shared<const IdxHeader>(IdxHeader::Parse(ReadText(idx), idx, kName));
  o.layout = std::make_shared<const BlockLayout>(o.header->bitmask, o.header->bits_per_block);
  ClassicBlockSource::Options options;
  options.threads = threads;
  o.blocks = OpenPidxChunkBlocks(o.header, o.layout, idx, std::nullopt, options);
  return o;
}

// Every presented block of every field, by (field, block): its bytes, or empty when absent.
std::map<std::pair<int, uint64_t>, std::vector<uint8_t>> FetchAll(BlockSource& source, const Opened& o) {
  std::vector<BlockKey> keys;
  for (int f = 0; f < static_cast<int>(o.header->fields.size()); ++f)
    for (uint64_t b = 0; b < o.layout->total_blocks(); ++b) keys.push_back(BlockKey{f, 0, b});
  std::map<std::pair<int, uint64_t>, std::vector<uint8_t>> got;
  std::mutex mutex;
  source.Fetch(keys, [&](size_t i, EncodedBlock&& b) {
    std::vector<uint8_t> bytes;
    if (b.present) {
      EXPECT_EQ(b.codec, Codec::kRaw);
      EXPECT_TRUE(b.row_major);
      EXPECT_EQ(b.size, source.DecodedBlockBytes(keys[i].field));
      bytes.assign(b.data, b.data + b.size);
    }
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_TRUE(got.emplace(std::make_pair(keys[i].field, keys[i].block), std::move(bytes)).second) << i;
  });
  EXPECT_EQ(got.size(), keys.size());
  return got;
}

TEST(PidxChunkSource, BlocksHoldTheFormulaAtEverySampleWhateverTheBatching) {
  const Opened o = Open(Golden(kName + ".idx"), 0);
  const auto all = FetchAll(*o.blocks, o);
  // One stored block at a time, on the calling thread: the same bytes.
  PidxChunkSource::Options tiny;
  tiny.threads = 1;
  tiny.batch_bytes = 1;
  PidxChunkSource one_by_one(o.header, o.layout, o.blocks->stored(), tiny);
  EXPECT_EQ(FetchAll(one_by_one, o), all);

  int64_t checked = 0;
  for (const auto& [key, bytes] : all) {
    const auto& [field, block] = key;
    const int components = o.header->fields[static_cast<size_t>(field)].dtype.components();
    ASSERT_FALSE(bytes.empty()) << field << " " << block;
    const Grid g = o.layout->BlockGrid(block);
    const double* v = reinterpret_cast<const double*>(bytes.data());
    for (int64_t k = 0; k < g.NumSamples(); ++k) {
      const int64_t x = g.origin[0] + k % g.count[0] * g.stride[0];
      const int64_t y = g.origin[1] + k / g.count[0] % g.count[1] * g.stride[1];
      const int64_t z = g.origin[2] + k / g.count[0] / g.count[1] * g.stride[2];
      for (int c = 0; c < components; ++c) {  // README: 100 + v + c + (gx*gy*z + gx*y + x)
        const double want = 100.0 + field + c + static_cast<double>(16 * 16 * z + 16 * y + x);
        ASSERT_EQ(v[k * components + c], want) << "field " << field << " block " << block << " (" << x << ","
                                               << y << "," << z << ") component " << c;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 16 * 16 * 32 * (1 + 3 + 1 + 3));  // the 2 blocks of each field cover every sample
}

TEST(PidxChunkSource, FetchIntoBuildsInTheCallersMemory) {
  const Opened o = Open(Golden(kName + ".idx"), 1);
  const BlockKey keys[] = {{1, 0, 1}, {0, 0, 0}};
  std::vector<uint8_t> a(o.blocks->DecodedBlockBytes(1)), b(o.blocks->DecodedBlockBytes(0));
  uint8_t* const targets[] = {a.data(), b.data()};
  int seen = 0;
  o.blocks->FetchInto(keys, targets, [&](size_t i, EncodedBlock&& block) {
    ASSERT_TRUE(block.present);
    EXPECT_EQ(block.data, targets[i]);
    ++seen;
  });
  EXPECT_EQ(seen, 2);
  double first = 0;
  std::memcpy(&first, b.data(), sizeof first);
  EXPECT_EQ(first, 100.0);  // field 0, sample (0,0,0)
}

TEST(PidxChunkSource, AbsentBlockFilesGiveAbsentBlocks) {
  TempDir dir;
  const std::string idx = dir.File(kName + ".idx");
  std::filesystem::copy_file(Golden(kName + ".idx"), idx);  // no data folder beside it
  const Opened o = Open(idx, 0);
  for (const auto& [key, bytes] : FetchAll(*o.blocks, o)) EXPECT_TRUE(bytes.empty()) << key.first << " " << key.second;
}

}  // namespace
}  // namespace hzio
