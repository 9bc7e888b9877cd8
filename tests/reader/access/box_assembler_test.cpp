// The one assembler (access/box_assembler.h) over real block sources: hz-ordered and row-major
// blocks, raw and compressed, absent blocks, payloads of the wrong decoded size, every level,
// one-level queries and sub-boxes.
#include "hzio/access/box_assembler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "hzio/access/dataset.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/util/thread_pool.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// Every level (cumulative and one-level), whole box and sub-boxes, equals SyntheticValue.
void ExpectSyntheticEverywhere(const std::string& idx, int64_t nx, int64_t ny, int64_t nz) {
  auto ds = OpenDataset(idx);
  const IdxHeader& h = ds->header();
  const std::vector<Box> boxes = {h.box, Box{Point{3, 1, 0}, Point{nx - 2, ny - 1, nz}},
                                  Box{Point{nx / 2, 0, nz / 2}, Point{nx / 2 + 1, ny, nz / 2 + 1}}};
  int checked = 0;
  for (const Box& box : boxes)
    for (int level = 0; level <= h.maxh(); ++level)
      for (const bool only : {false, true}) {
        const LevelRange levels{only ? level : 0, level};
        Grid grid;
        try {
          grid = ds->layout().QueryGrid(box, levels);
        } catch (const Error& e) {
          ASSERT_EQ(e.code(), ErrorCode::kOutOfRange) << e.what();  // the box holds no sample of it
          continue;
        }
        std::vector<float> out(static_cast<size_t>(grid.NumSamples()));
        AssembleBox(*ds->block_source(), BoxRequest{0, 0, levels, grid}, reinterpret_cast<uint8_t*>(out.data()));
        int64_t i = 0;
        for (int64_t z = 0; z < grid.count[2]; ++z)
          for (int64_t y = 0; y < grid.count[1]; ++y)
            for (int64_t x = 0; x < grid.count[0]; ++x, ++i) {
              const int64_t px = grid.origin[0] + x * grid.stride[0], py = grid.origin[1] + y * grid.stride[1],
                            pz = grid.origin[2] + z * grid.stride[2];
              const float want = px < nx && py < ny && pz < nz ? testing::SyntheticValue(px, py, pz, 0) : 0.0f;
              ASSERT_EQ(out[static_cast<size_t>(i)], want)
                  << idx << " box " << box.ToRangesString() << " level " << level << " only " << only;
            }
        ++checked;
      }
  EXPECT_GT(checked, h.maxh() * 3);
}

TEST(BoxAssembler, RowMajorAndHzBlocksRawAndCompressed) {
  testing::TempDir dir;
  // 20x12x6: not powers of two (blocks straddle the box), several blocks per file and files.
  int n = 0;
  for (const char* field : {"v float32", "v float32 default_layout(hzorder)", "v float32 default_compression(zip)",
                            "v float32 default_compression(lz4) default_layout(hzorder)"}) {
    testing::SyntheticLayout layout;
    layout.name = "ds" + std::to_string(n++) + ".idx";
    layout.field = field;
    layout.bits_per_block = 5;
    layout.blocks_per_file = 8;
    ExpectSyntheticEverywhere(testing::WriteSyntheticDataset(dir, 20, 12, 6, layout), 20, 12, 6);
  }
}

TEST(BoxAssembler, TinyHzAndRowMajorDatasetsAgree) {  // idx-format.md §4.8
  for (const char* idx : {"tiny/hz.idx", "tiny/rm.idx"}) {
    auto ds = OpenDataset(testing::GoldenPath(idx));
    for (int level = 0; level <= 4; ++level) {
      BoxQuery q;
      q.level = level;
      const BoxResult r = ds->Read(q);
      for (int64_t y = 0; y < r.grid.count[1]; ++y)
        for (int64_t x = 0; x < r.grid.count[0]; ++x)
          ASSERT_EQ(r.data.data()[y * r.grid.count[0] + x],
                    10 * (r.grid.origin[1] + y * r.grid.stride[1]) + r.grid.origin[0] + x * r.grid.stride[0])
              << idx << " level " << level;
    }
  }
}

TEST(BoxAssembler, AbsentBlocksTakeTheDefaultValue) {
  testing::TempDir dir;
  const std::string idx = dir.File("part.idx");
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{16, 16}};
  h.fields.push_back(Field::Parse("v uint8 default_value(7)", 6));
  h.bits_per_block = 4;
  {
    DatasetWriter w(idx, h);
    std::vector<uint8_t> ones(16, 1);
    w.Write(0, 0, Box{Point{0, 0}, Point{4, 4}}, ones.data());  // a corner only
    w.Finish();
  }
  auto ds = OpenDataset(idx);
  const BoxResult r = ds->Read(BoxQuery{});
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) {
      const uint8_t v = r.data.data()[16 * y + x];
      if (x < 4 && y < 4) ASSERT_EQ(v, 1) << x << "," << y;
      else ASSERT_TRUE(v == 7 || v == 0) << x << "," << y;  // absent: 7; padding of a written block: 0
    }
  // Some block past the written corner was never written: only the default value there.
  BoxQuery far;
  far.box = Box{Point{12, 12}, Point{16, 16}};
  const BoxResult f = ds->Read(far);
  for (int64_t i = 0; i < f.grid.NumSamples(); ++i) ASSERT_EQ(f.data.data()[i], 7);
}

// An 8x8x8 float32 dataset (bitsperblock 6) of `field`, reopened with its field declared float64:
// every payload then decodes to half the bytes a block needs.
std::shared_ptr<Dataset> DeclaredTwiceAsWide(const testing::TempDir& dir, const std::string& field) {
  testing::SyntheticLayout layout;
  layout.field = field;
  layout.bits_per_block = 6;
  const std::string idx = testing::WriteSyntheticDataset(dir, 8, 8, 8, layout);
  std::string text = testing::ReadText(idx);
  text.replace(text.find("float32"), 7, "float64");
  std::ofstream(idx, std::ios::binary | std::ios::trunc) << text;
  return OpenDataset(idx);
}

TEST(BoxAssembler, PayloadOfTheWrongDecodedSizeIsCorruptNamingTheBlock) {
  testing::TempDir dir;
  auto ds = DeclaredTwiceAsWide(dir, "v float32 default_compression(zip)");
  EXPECT_HZIO_ERROR(ds->Read(BoxQuery{}), ErrorCode::kCorrupt, ".bin: block", "zip block does not decode to 512 bytes");
  EXPECT_HZIO_ERROR(ds->ReadBlock(0, 0, 1), ErrorCode::kCorrupt, ".bin: block 1", "does not decode");
}

TEST(BoxAssembler, RawPayloadOfTheWrongSizeIsCorrupt) {
  testing::TempDir dir;
  auto ds = DeclaredTwiceAsWide(dir, "v float32");
  EXPECT_HZIO_ERROR(ds->Read(BoxQuery{}), ErrorCode::kCorrupt, "raw block has 256 bytes, expected 512");
}

TEST(BoxAssembler, ReadBlockReturnsTheStoredLayout) {
  auto hz = OpenDataset(testing::GoldenPath("tiny/hz.idx"));
  auto rm = OpenDataset(testing::GoldenPath("tiny/rm.idx"));
  const std::optional<DecodedBlock> a = hz->ReadBlock(0, 0, 1), b = rm->ReadBlock(0, 0, 1);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->row_major);
  EXPECT_TRUE(b->row_major);
  EXPECT_EQ(a->bytes, (std::vector<uint8_t>{1, 21, 3, 23}));  // §4.8: hz order
  EXPECT_EQ(b->bytes, (std::vector<uint8_t>{1, 3, 21, 23}));  // row-major
  EXPECT_EQ(a->grid, hz->layout().BlockGrid(1));
  EXPECT_HZIO_ERROR(hz->ReadBlock(0, 0, 4), ErrorCode::kOutOfRange, "block 4 is beyond the last block 3");
  EXPECT_HZIO_ERROR(hz->ReadBlock(2, 0, 0), ErrorCode::kNotFound, "no field index 2");
}


// Delivers the blocks of `inner` one after the other on the calling thread (as a network loop
// does), each payload in a buffer of its own whose release is recorded: which threads let go of
// payloads (the threads that decoded them) and how many were alive at once. `corrupt_block`
// (if set) gets a payload that does not inflate.
class SerialRecordingSource : public BlockSource {
 public:
  explicit SerialRecordingSource(std::shared_ptr<BlockSource> inner)
      : BlockSource(inner->shared_header(), inner->shared_layout(), inner->name()), inner_(std::move(inner)) {}
  std::string Version() const override { return inner_->Version(); }
  void Fetch(std::span<const BlockKey> keys, const BlockSink& sink) override {
    inner_->Fetch(keys, [&](size_t i, EncodedBlock&& b) {
      if (b.present) {
        auto copy = std::shared_ptr<std::vector<uint8_t>>(new std::vector<uint8_t>(b.data, b.data + b.size),
                                                           [this](std::vector<uint8_t>* p) { Released(p); });
        if (keys[i].block == corrupt_block) std::fill(copy->begin(), copy->end(), uint8_t{0xff});
        const int now = ++alive_;
        int seen = max_alive_.load();
        while (now > seen && !max_alive_.compare_exchange_weak(seen, now)) {
        }
        b.data = copy->data();
        b.owner = std::move(copy);
        // A network loop waits between blocks: the pool's threads get their turn even on a
        // loaded machine.
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
      sink(i, std::move(b));
    });
  }
  std::set<std::thread::id> releasing_threads() {
    std::lock_guard<std::mutex> lock(mu_);
    return threads_;
  }
  int max_alive() const { return max_alive_; }
  uint64_t corrupt_block = UINT64_MAX;

 private:
  void Released(std::vector<uint8_t>* p) {
    delete p;
    --alive_;
    std::lock_guard<std::mutex> lock(mu_);
    threads_.insert(std::this_thread::get_id());
  }
  std::shared_ptr<BlockSource> inner_;
  std::atomic<int> alive_{0}, max_alive_{0};
  std::mutex mu_;
  std::set<std::thread::id> threads_;
};

// A 64x64x32 synthetic dataset of `field` (256 blocks), opened to read on the calling thread only
// (threads 1): a SerialRecordingSource over it delivers on one thread.
std::shared_ptr<Dataset> SerialSyntheticDataset(const testing::TempDir& dir, const std::string& name,
                                                const std::string& field) {
  testing::SyntheticLayout layout;
  layout.name = name;
  layout.field = field;
  layout.bits_per_block = 9;
  layout.blocks_per_file = 16;
  OpenOptions serial_reads;
  serial_reads.threads = 1;
  return OpenDataset(testing::WriteSyntheticDataset(dir, 64, 64, 32, layout), serial_reads);
}

// A source delivering on one thread gets its blocks decoded on the pool (parallel decode), with a
// bounded backlog, results equal to the source's own parallel read; threads = 1 keeps every decode
// on the delivering thread.
TEST(BoxAssembler, ParallelDecodeOfASerialSource) {
  if (ThreadPool::Shared().size() < 2) GTEST_SKIP() << "one core: the assembler decodes inline";
  testing::TempDir dir;
  int n = 0;
  for (const char* field : {"v float32 default_compression(zip) default_layout(hzorder)",
                            "v float32 default_compression(zip)"}) {
    auto ds = SerialSyntheticDataset(dir, "serial" + std::to_string(n++) + ".idx", field);
    const Dataset::Resolved whole = ds->Resolve(BoxQuery{});
    std::vector<uint8_t> want(static_cast<size_t>(whole.grid.NumSamples()) * 4);
    ds->ReadInto(whole, want.data());
    for (const int threads : {0, 1}) {
      SerialRecordingSource serial(ds->block_source());
      std::vector<uint8_t> got(want.size(), 0xee);
      AssembleBox(serial, BoxRequest{0, 0, whole.levels, whole.grid, threads}, got.data());
      ASSERT_EQ(0, std::memcmp(got.data(), want.data(), want.size())) << field << " threads " << threads;
      const std::set<std::thread::id> ids = serial.releasing_threads();
      if (threads == 1) {
        EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()}) << field;
      } else {
        EXPECT_GT(ids.size(), 1u) << field << ": every block was decoded on the delivering thread";
        // Waiting blocks (2 per pool thread), those being decoded, and the one being delivered.
        EXPECT_LE(serial.max_alive(), 3 * ThreadPool::Shared().size() + 1) << field;
      }
    }
  }
}

TEST(BoxAssembler, ParallelDecodeErrorEndsTheRead) {
  testing::TempDir dir;
  auto ds = SerialSyntheticDataset(dir, "serial.idx", "v float32 default_compression(zip)");
  const Dataset::Resolved whole = ds->Resolve(BoxQuery{});
  std::vector<uint8_t> got(static_cast<size_t>(whole.grid.NumSamples()) * 4);
  SerialRecordingSource serial(ds->block_source());
  serial.corrupt_block = 37;
  EXPECT_HZIO_ERROR(AssembleBox(serial, BoxRequest{0, 0, whole.levels, whole.grid}, got.data()),
                    ErrorCode::kCorrupt, ": block 37");
}

}  // namespace
}  // namespace hzio
