// Tests of mpi/block_reading.h that need no MPI (each rank runs them alone, in its own directory):
// the placement copy with and without streaming stores, and ReadBlocks handing units to a sink
// exactly as it stores them in caller memory, for every permutation path (gathered and scattered
// sample sizes, the coarse levels of block 0, raw and zip, absent blocks), and offering whole
// hz-ordered units to a sink that may place them itself.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset_writer.h"
#include "hzio/access/synthetic.h"
#include "hzio/mpi/block_reading.h"
#include "hzio/mpi/parallel_writer.h"
#include "hzio/util/error.h"
#include "hzio/util/stream_copy.h"
#include "hzio/util/thread_pool.h"

namespace hzio::mpi {
namespace {

namespace fs = std::filesystem;

// A grid copy through every axis plan shape (steps of 1 and 2, offsets, counts down to 1): with
// streaming stores the destination holds the same bytes, and nothing outside the plan changes.
TEST(BlockReading, StreamedPlacementWritesTheSameBytes) {
  std::mt19937_64 rng(7);
  for (const int64_t sb : {1, 8, 24, 88}) {
    for (int trial = 0; trial < 20; ++trial) {
      const Grid src{Point{0, 0, 0}, Point{1 + static_cast<int64_t>(rng() % 70), 1 + static_cast<int64_t>(rng() % 5), 3},
                     Point{1, 1, 1}};
      const Grid dst{Point{0, 0, 0}, src.count, Point{1, 1, 1}};
      AxisCopy plan[kMaxDims];
      for (int d = 0; d < 3; ++d) {
        const int64_t count = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(src.count[d]));
        const int64_t step = count > 1 && rng() % 2 ? 1 + static_cast<int64_t>(rng() % 2) : 1;
        const int64_t reach = (count - 1) * step + 1;
        const int64_t room = src.count[d] - reach;
        if (room < 0) {
          plan[d] = AxisCopy{0, 1, 0, 1, 1};
          continue;
        }
        plan[d] = AxisCopy{static_cast<int64_t>(rng() % static_cast<uint64_t>(room + 1)), step,
                           static_cast<int64_t>(rng() % static_cast<uint64_t>(room + 1)), step, count};
      }
      std::vector<uint8_t> from(static_cast<size_t>(src.NumSamples() * sb));
      for (uint8_t& b : from) b = static_cast<uint8_t>(rng());
      std::vector<uint8_t> plain(static_cast<size_t>(dst.NumSamples() * sb), 0xEE), streamed = plain;
      CopyPlanned(from.data(), src.count, plain.data(), dst.count, plan, 3, sb, false);
      CopyPlanned(from.data(), src.count, streamed.data(), dst.count, plan, 3, sb, true);
      StreamFence();
      ASSERT_EQ(plain, streamed) << "sample bytes " << sb << ", trial " << trial;
    }
  }
}

// A dataset written by the serial writer: three fields whose samples take each permutation path
// (8 bytes gathered, 24 scattered, 3 bytes gathered), in hz-ordered or row-major blocks (the
// reader decodes both), small blocks over several files, of which one field is left unwritten in
// part of the box (absent blocks).
std::string WriteDataset(const std::string& dir, const std::string& compression, bool hz_layout) {
  IdxHeader h;
  h.box = Box(Point{0, 0, 0}, Point{37, 22, 19});
  for (const char* spec : {"p:float64", "v:float64[3]", "rgb:uint8[3]"}) {
    Field f = ParseFieldList(spec)[0];
    f.compression = compression == "raw" ? "" : compression;
    f.hz_layout = hz_layout;
    h.fields.push_back(f);
  }
  h.bits_per_block = 9;
  h.blocks_per_file = 8;
  h.Validate("visus");
  const std::string idx = dir + "/visus.idx";
  DatasetWriter w(idx, h);
  for (int f = 0; f < 3; ++f) {
    const Box box = f == 2 ? Box(Point{0, 0, 0}, Point{18, 22, 19}) : h.box;  // rgb: half of it
    const Grid all = DenseGrid(box);
    std::vector<uint8_t> data(static_cast<size_t>(h.fields[static_cast<size_t>(f)].dtype.BytesFor(all.NumSamples())));
    FillSynthetic(h.fields[static_cast<size_t>(f)].dtype, f, 0, all, data.data());
    w.Write(f, 0, box, data.data());
  }
  w.Finish();
  return idx;
}

// A dataset opened as the parallel reader opens it.
struct Opened {
  std::shared_ptr<IdxHeader> header;
  std::shared_ptr<BlockLayout> layout;
  std::unique_ptr<ClassicBlockSource> source;
};

Opened Open(const std::string& idx) {
  std::ifstream in(idx);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Opened d;
  d.header = std::make_shared<IdxHeader>(IdxHeader::Parse(text, idx));
  d.layout = std::make_shared<BlockLayout>(d.header->bitmask, d.header->bits_per_block);
  d.source = std::make_unique<ClassicBlockSource>(d.header, d.layout, idx);
  return d;
}

// Every field's `blocks` read into caller memory, unit after unit: what a sink must be handed.
struct StoredUnits {
  std::vector<std::vector<uint8_t>> bytes;  // per field
  std::vector<FieldTarget> targets;         // pointing into `bytes`
};

StoredUnits ReadStored(Opened& d, const std::vector<uint64_t>& blocks, int level, const BlockLayout* units = nullptr,
                       const ReadBlocksOptions& how = {}) {
  if (!units) units = d.layout.get();
  const int64_t unit = units->samples_per_block();
  StoredUnits stored;
  const int fields = static_cast<int>(d.header->fields.size());
  stored.bytes.resize(static_cast<size_t>(fields));
  for (int f = 0; f < fields; ++f) {
    const int64_t sb = d.header->fields[static_cast<size_t>(f)].dtype.SampleBytes();
    std::vector<uint8_t>& bytes = stored.bytes[static_cast<size_t>(f)];
    bytes.assign(blocks.size() * static_cast<size_t>(unit * sb), 0);
    stored.targets.push_back(FieldTarget{f, {}});
    for (size_t i = 0; i < blocks.size(); ++i) stored.targets.back().out.push_back(bytes.data() + i * static_cast<size_t>(unit * sb));
  }
  (void)ReadBlocks(*d.source, *units, stored.targets, 0, blocks, false, level, how);
  return stored;
}

// Runs `test` on the dataset of each variant (raw and zip, hz-ordered and row-major blocks), each
// written into a fresh temporary directory, removed afterwards.
template <class Test>
void ForEachVariant(const std::string& name, Test&& test) {
  const fs::path dir = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  for (const std::string variant : {"raw", "zip", "raw row-major", "zip row-major"}) {
    const bool hz_layout = variant.find("row-major") == std::string::npos;
    Opened d = Open(WriteDataset((dir / variant).string(), variant.substr(0, 3), hz_layout));
    test(d, variant, hz_layout);
  }
  fs::remove_all(dir);
}

TEST(BlockReading, SinkGetsEveryUnitAsStoredInCallerMemory) {
  ForEachVariant("hzio-block-reading", [](Opened& d, const std::string& compression, bool) {
    const std::shared_ptr<IdxHeader>& header = d.header;
    const std::shared_ptr<BlockLayout>& layout = d.layout;
    ClassicBlockSource& source = *d.source;
    ThreadPool pool(2);
    // Every level: the coarse ones read only part of block 0. With placers, the units of a raw hz
    // piece are handed over from several threads at once.
    for (ThreadPool* placers : {static_cast<ThreadPool*>(nullptr), &pool})
    for (int level = 0; level <= header->maxh(); level += 3) {
      std::vector<uint64_t> blocks = BoxBlocks(*header, *layout, header->box, level);
      const int64_t unit = layout->samples_per_block();
      StoredUnits reference = ReadStored(d, blocks, level);
      const std::vector<std::vector<uint8_t>>& stored = reference.bytes;
      const std::vector<FieldTarget>& targets = reference.targets;
      std::vector<std::vector<uint8_t>> sunk(3);
      for (int f = 0; f < 3; ++f) sunk[static_cast<size_t>(f)].assign(stored[static_cast<size_t>(f)].size(), 0);
      std::vector<std::vector<int>> calls(3, std::vector<int>(blocks.size(), 0));
      const BlockSink sink = [&](size_t t, size_t i, const uint8_t* samples) {
        const int64_t sb = header->fields[static_cast<size_t>(targets[t].field)].dtype.SampleBytes();
        std::memcpy(sunk[t].data() + i * static_cast<size_t>(unit * sb), samples, static_cast<size_t>(unit * sb));
        ++calls[t][i];
      };
      ReadBlocksOptions how;
      how.sink = &sink;
      how.placers = placers;
      (void)ReadBlocks(source, *layout, targets, 0, blocks, false, level, how);
      for (int f = 0; f < 3; ++f) {
        for (size_t i = 0; i < blocks.size(); ++i)
          ASSERT_EQ(calls[static_cast<size_t>(f)][i], 1) << compression << " level " << level << " field " << f << " block " << blocks[i]
                                                        << (placers ? " (placers)" : "");
        if (level < header->bits_per_block) {
          // Only block 0, of which only the samples of levels 0..level are defined (in-block hz
          // indices below 2^level; the rest is left as it was): those must agree.
          ASSERT_EQ(blocks, std::vector<uint64_t>{0});
          const int64_t sb = header->fields[static_cast<size_t>(f)].dtype.SampleBytes();
          const std::vector<uint32_t>& to_hz = layout->RowMajorToHz(header->bits_per_block);
          for (size_t r = 0; r < to_hz.size(); ++r) {
            if (to_hz[r] >= (uint32_t{1} << level)) continue;
            const size_t at = r * static_cast<size_t>(sb);
            ASSERT_TRUE(std::equal(stored[static_cast<size_t>(f)].begin() + at, stored[static_cast<size_t>(f)].begin() + at + sb,
                                   sunk[static_cast<size_t>(f)].begin() + at))
                << compression << " level " << level << " field " << f << " row-major sample " << r;
          }
        } else {
          ASSERT_EQ(stored[static_cast<size_t>(f)], sunk[static_cast<size_t>(f)])
              << compression << " level " << level << " field " << f << (placers ? " (placers)" : "");
        }
      }
    }
    // Rows of units are the caller's buffers' business: a sink takes whole units only.
    std::vector<Span> rows(1, Span{0, 1});
    const BlockSink sink = [](size_t, size_t, const uint8_t*) {};
    ReadBlocksOptions how;
    how.rows = &rows;
    how.sink = &sink;
    std::vector<FieldTarget> one{FieldTarget{0, {nullptr}}};
    try {
      (void)ReadBlocks(source, *layout, one, 0, {1}, false, header->maxh(), how);
      ADD_FAILURE() << "rows with a sink were accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument) << e.what();
    }
  });
}

// The pieces a node's ranks read in: 4 MiB for a rank alone, one huge page for two and more.
TEST(BlockReading, PiecesShrinkWithTheRanksOfANodeToOneHugePage) {
  EXPECT_EQ(PieceBytesFor(1), uint64_t{4} << 20);
  EXPECT_EQ(PieceBytesFor(0), uint64_t{4} << 20);
  EXPECT_EQ(PieceBytesFor(2), uint64_t{2} << 20);
  EXPECT_EQ(PieceBytesFor(3), uint64_t{2} << 20);
  EXPECT_EQ(PieceBytesFor(64), uint64_t{2} << 20);
}

// Pieces of any size, read buffered or past the page cache, hand over the same units: down to one
// unit per piece (each read placed while the next is in flight) and up to a whole file.
TEST(BlockReading, AnyPieceSizeReadsTheSameUnits) {
  ForEachVariant("hzio-block-pieces", [](Opened& d, const std::string& variant, bool) {
    const std::vector<uint64_t> blocks = BoxBlocks(*d.header, *d.layout, d.header->box, d.header->maxh());
    const StoredUnits reference = ReadStored(d, blocks, d.header->maxh());
    for (const uint64_t piece : {uint64_t{1}, uint64_t{5000}, uint64_t{1} << 30})
      for (const DirectReads direct : {DirectReads::kNever, DirectReads::kAlways}) {
        ReadBlocksOptions how;
        how.piece_bytes = piece;
        how.direct = direct;
        const StoredUnits read = ReadStored(d, blocks, d.header->maxh(), nullptr, how);
        ASSERT_EQ(read.bytes, reference.bytes)
            << variant << ", pieces of " << piece << " bytes" << (direct == DirectReads::kAlways ? ", direct" : "");
      }
  });
}

// A sink in hz order is offered every whole hz-ordered unit once, in hz order (a row-major sample r
// is its hz sample RowMajorToHz[r]); a unit it takes is not handed to the sink, one it declines is,
// permuted; block 0 read in part (coarse levels) and row-major blocks are never offered.
TEST(BlockReading, HzSinkIsOfferedWholeUnitsInHzOrder) {
  ForEachVariant("hzio-block-reading-hz", [](Opened& d, const std::string& compression, bool hz_layout) {
    const std::shared_ptr<IdxHeader>& header = d.header;
    const std::shared_ptr<BlockLayout>& layout = d.layout;
    ClassicBlockSource& source = *d.source;
    ThreadPool pool(2);
    for (ThreadPool* placers : {static_cast<ThreadPool*>(nullptr), &pool})
    for (int level = 0; level <= header->maxh(); level += 2) {
      const std::vector<uint64_t> blocks = BoxBlocks(*header, *layout, header->box, level);
      const int64_t unit = layout->samples_per_block();
      StoredUnits reference = ReadStored(d, blocks, level);
      const std::vector<std::vector<uint8_t>>& stored = reference.bytes;
      const std::vector<FieldTarget>& targets = reference.targets;
      std::vector<std::vector<int>> offered(3, std::vector<int>(blocks.size(), 0)), sunk = offered;
      const auto check = [&](size_t t, size_t i, const uint8_t* samples, const std::vector<uint32_t>* hz_of_row) {
        const int64_t sb = header->fields[static_cast<size_t>(targets[t].field)].dtype.SampleBytes();
        const uint8_t* expected = stored[t].data() + i * static_cast<size_t>(unit * sb);
        for (int64_t r = 0; r < unit; ++r) {
          const int64_t from = hz_of_row ? (*hz_of_row)[static_cast<size_t>(r)] : r;
          ASSERT_EQ(std::memcmp(samples + from * sb, expected + r * sb, static_cast<size_t>(sb)), 0)
              << compression << " level " << level << " field " << t << " block " << blocks[i] << " sample " << r;
        }
      };
      std::mutex threads_mutex;
      std::set<std::thread::id> threads;  // that offered units
      const HzSink hz_sink = [&](size_t t, size_t i, const uint8_t* hz_samples, int unit_level) {
        EXPECT_EQ(unit_level, layout->BlockLevel(blocks[i]));
        {
          const std::lock_guard<std::mutex> lock(threads_mutex);
          threads.insert(std::this_thread::get_id());
        }
        // Long enough that the pool's idle threads take units of the piece too.
        if (placers) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++offered[t][i];
        check(t, i, hz_samples, &layout->RowMajorToHz(unit_level));
        return i % 2 == 1;  // takes every other unit
      };
      const BlockSink sink = [&](size_t t, size_t i, const uint8_t* samples) {
        ++sunk[t][i];
        if (level >= header->bits_per_block) check(t, i, samples, nullptr);
      };
      ReadBlocksOptions how;
      how.sink = &sink;
      how.hz_sink = &hz_sink;
      how.placers = placers;
      (void)ReadBlocks(source, *layout, targets, 0, blocks, false, level, how);
      // Raw hz pieces of several units are placed by more than one thread; nothing else is.
      const bool shared = placers && compression == "raw" && hz_layout && level >= header->bits_per_block;
      EXPECT_EQ(threads.size() > 1, shared) << compression << " level " << level << ": " << threads.size() << " threads";
      for (size_t t = 0; t < 3; ++t) {
        for (size_t i = 0; i < blocks.size(); ++i) {
          // Absent blocks (the rgb field's unwritten half) are filled and handed to the sink.
          if (level < header->bits_per_block || !hz_layout) {
            EXPECT_EQ(offered[t][i], 0) << compression << " level " << level;
          }
          EXPECT_LE(offered[t][i], 1);
          EXPECT_EQ(sunk[t][i], offered[t][i] == 1 && i % 2 == 1 ? 0 : 1)
              << compression << " level " << level << " field " << t << " block " << blocks[i];
        }
        if (hz_layout && level >= header->bits_per_block && t < 2) {  // fully written: every unit offered
          for (size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(offered[t][i], 1) << compression << " level " << level;
        }
      }
    }
  });
}

// In hz order every unit is kept as the file holds it: put into row-major order (HzUnitToRowMajor)
// it equals the unit ReadBlocks stores permuted, for the file's blocks and for units 4x finer, at
// every level (unit 0 of a coarse level: its defined samples), raw (read straight into place in
// runs) and zip, hz-ordered and row-major blocks, absent blocks (their default value) included.
TEST(BlockReading, HzOrderKeepsUnitsAsTheFileHoldsThem) {
  ForEachVariant("hzio-block-reading-hz-order", [](Opened& d, const std::string& variant, bool) {
    const IdxHeader& header = *d.header;
    const BlockLayout finer(header.bitmask, header.bits_per_block - 2);
    for (const BlockLayout* units : {static_cast<const BlockLayout*>(d.layout.get()), &finer}) {
      for (int level = 0; level <= header.maxh(); level += 3) {
        const std::vector<uint64_t> blocks = BoxBlocks(header, *units, header.box, level);
        const int64_t n = units->samples_per_block();
        ReadBlocksOptions hz;
        hz.hz_order = true;
        const StoredUnits reference = ReadStored(d, blocks, level, units), kept = ReadStored(d, blocks, level, units, hz);
        for (size_t f = 0; f < 3; ++f) {
          const int64_t sb = header.fields[f].dtype.SampleBytes();
          std::vector<uint8_t> rows(static_cast<size_t>(n * sb));
          for (size_t i = 0; i < blocks.size(); ++i) {
            const uint64_t u = blocks[i];
            HzUnitToRowMajor(*units, u, level, kept.targets[f].out[i], sb, Span{0, n}, rows.data());
            const uint8_t* expected = reference.targets[f].out[i];
            const bool sparse = UnitSamplesNeeded(*units, u, level) < n;  // unit 0 of a coarse level
            const std::vector<uint32_t>& to_hz = units->RowMajorToHz(units->BlockLevel(u));
            for (int64_t r = 0; r < n; ++r) {
              if (sparse && to_hz[static_cast<size_t>(r)] >= (uint32_t{1} << level)) continue;
              ASSERT_EQ(std::memcmp(rows.data() + r * sb, expected + r * sb, static_cast<size_t>(sb)), 0)
                  << variant << ", " << units->bits_per_block() << " bits per unit, level " << level << ", field " << f
                  << ", unit " << u << ", row-major sample " << r;
            }
          }
        }
      }
    }
    // Whole units only: no rows, no sink.
    std::vector<Span> rows(1, Span{0, 1});
    ReadBlocksOptions how;
    how.hz_order = true;
    how.rows = &rows;
    std::vector<FieldTarget> one{FieldTarget{0, {nullptr}}};
    EXPECT_THROW((void)ReadBlocks(*d.source, *d.layout, one, 0, {1}, false, header.maxh(), how), Error);
  });
}

}  // namespace
}  // namespace hzio::mpi
