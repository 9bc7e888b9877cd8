// `hzio copy` in the library (access/dataset_copy.h): classic <-> ARCO, another compression,
// layout and block geometry, some fields and timesteps; the copy reads like its source at every
// level; small slabs stream; an existing destination and unknown fields are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <mutex>

#include "hzio/access/arco_block_source.h"
#include "hzio/access/classic_block_source.h"
#include "hzio/access/dataset.h"
#include "hzio/access/dataset_copy.h"
#include "hzio/access/dataset_paths.h"
#include "hzio/format/arco_block_path.h"
#include "hzio/storage/durable_file.h"
#include "support/test_support.h"

namespace hzio {
namespace {

namespace fs = std::filesystem;

// Every level of every field and timestep of `b` equals `a`'s.
void ExpectSameReads(const std::string& a, const std::string& b) {
  auto da = OpenDataset(a), db = OpenDataset(b);
  ASSERT_EQ(da->header().maxh(), db->header().maxh());
  for (const Field& f : db->header().fields)
    for (int64_t t : db->header().time.List())
      for (int level = 0; level <= da->header().maxh(); ++level) {
        BoxQuery q;
        q.field = f.name;
        q.time = t;
        q.level = level;
        const BoxResult ra = da->Read(q), rb = db->Read(q);
        ASSERT_EQ(ra.data.ByteSize(), rb.data.ByteSize());
        ASSERT_EQ(0, std::memcmp(ra.data.data(), rb.data.data(), static_cast<size_t>(ra.data.ByteSize())))
            << f.name << " t" << t << " level " << level;
      }
}

TEST(DatasetCopy, ClassicToArcoAndBackInSmallSlabs) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 40, 24, 12, 2);
  CopyOptions to_arco;
  to_arco.arco = 8192;
  to_arco.compression = "";
  to_arco.slab_bytes = 1;  // one z plane at a time
  auto source = OpenDataset(src);
  EXPECT_EQ(CopyDataset(*source, dir.File("arco.idx"), to_arco), int64_t{40} * 24 * 12 * 4 * 2);
  auto arco = OpenDataset(dir.File("arco.idx"));
  EXPECT_NE(dynamic_cast<ArcoBlockSource*>(arco->block_source().get()), nullptr);
  EXPECT_EQ(arco->header().arco, 8192);
  EXPECT_EQ(arco->header().fields[0].compression, "");
  ExpectSameReads(src, dir.File("arco.idx"));

  CopyOptions back;
  back.compression = "zip";
  back.hz_layout = true;
  back.bits_per_block = 7;
  back.blocks_per_file = 3;
  CopyDataset(*arco, dir.File("classic.idx"), back);
  auto classic = OpenDataset(dir.File("classic.idx"));
  EXPECT_NE(dynamic_cast<ClassicBlockSource*>(classic->block_source().get()), nullptr);
  EXPECT_EQ(classic->header().bits_per_block, 7);
  EXPECT_EQ(classic->header().blocks_per_file, 3);
  EXPECT_TRUE(classic->header().fields[0].hz_layout);
  ExpectSameReads(src, dir.File("classic.idx"));
}

// Keeps what a writer puts (an upload's stand-in is the local ARCO copy: same bytes expected).
class CollectingOutput : public ArcoBlockOutput {
 public:
  void Put(int64_t time, const std::string& field, uint64_t block, ByteBuffer payload) override {
    const std::string path = ArcoBlockPath("dst", time, field, block);
    EXPECT_EQ(objects.count(path), 0u) << path << " put twice";
    objects[path].assign(reinterpret_cast<const char*>(payload.data()), payload.size());
  }
  void Finish() override { ++finished; }
  std::map<std::string, std::string> objects;
  int finished = 0;
};

TEST(DatasetCopy, AnOutputGetsTheBlocksOfTheLocalArcoCopy) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 40, 24, 12, 2);
  auto source = OpenDataset(src);
  CopyOptions options;
  options.arco = 4096;
  options.compression = "zip";
  options.slab_bytes = 4096;  // many pieces: blocks of the coarse levels wait for several
  CopyDataset(*source, dir.File("dst.idx"), options);

  CollectingOutput output;
  DatasetWriter writer("memory:dst.idx", CopyHeader(source->header(), "dst.idx", options), output, options.writer);
  EXPECT_EQ(CopyDatasetInto(*source, writer, options), int64_t{40} * 24 * 12 * 4 * 2);
  EXPECT_EQ(output.finished, 1);
  EXPECT_EQ(writer.header().ToText(), ReadWholeFile(dir.File("dst.idx")));
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir.File("dst"))) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string path = fs::relative(entry.path(), dir.path()).string();
    ASSERT_EQ(output.objects.count(path), 1u) << path;
    EXPECT_EQ(output.objects[path], ReadWholeFile(entry.path().string())) << path;
  }
  EXPECT_GT(files, 8u);
  EXPECT_EQ(output.objects.size(), files);

  // A writer with an output takes ARCO only; a block written again after it went out is refused.
  EXPECT_HZIO_ERROR(DatasetWriter("memory:c.idx", CopyHeader(source->header(), "c.idx", CopyOptions{}), output),
                    ErrorCode::kInternal, "ARCO datasets only");
  CollectingOutput again;
  DatasetWriter twice("memory:dst.idx", CopyHeader(source->header(), "dst.idx", options), again);
  const IdxHeader& h = twice.header();
  std::vector<uint8_t> samples(static_cast<size_t>(h.fields[0].dtype.BytesFor(h.box.Size().Product())), 1);
  const int64_t t = h.time.List().front();
  twice.Write(0, t, h.box, samples.data());
  EXPECT_HZIO_ERROR(twice.Write(0, t, h.box, samples.data()), ErrorCode::kUnsupported, "written again after it went out");
}

TEST(DatasetCopy, SomeFieldsAndTimesteps) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 16, 8, 4, 3);
  auto source = OpenDataset(src);
  CopyOptions some;
  some.times = std::make_pair(int64_t{1}, int64_t{2});
  some.fields = {"v"};
  CopyDataset(*source, dir.File("some.idx"), some);
  auto copy = OpenDataset(dir.File("some.idx"));
  EXPECT_EQ(copy->header().time.List(), (std::vector<int64_t>{1, 2}));
  BoxQuery q;
  q.time = 2;
  const BoxResult a = source->Read(q), b = copy->Read(q);
  EXPECT_EQ(0, std::memcmp(a.data.data(), b.data.data(), static_cast<size_t>(a.data.ByteSize())));
}

TEST(DatasetCopy, RefusesAnExistingDestinationAndUnknownParts) {
  testing::TempDir dir;
  const std::string src = testing::WriteSyntheticDataset(dir, 16, 8, 4, 1);
  auto source = OpenDataset(src);
  const std::string before = testing::ReadText(src);
  EXPECT_HZIO_ERROR(CopyDataset(*source, src, CopyOptions{}), ErrorCode::kInvalidArgument, src, "already exists");
  EXPECT_EQ(testing::ReadText(src), before);
  CopyOptions unknown;
  unknown.fields = {"nope"};
  EXPECT_HZIO_ERROR(CopyDataset(*source, dir.File("x.idx"), unknown), ErrorCode::kNotFound, "no field 'nope'");
  CopyOptions times;
  times.times = std::make_pair(int64_t{0}, int64_t{5});
  EXPECT_HZIO_ERROR(CopyDataset(*source, dir.File("x.idx"), times), ErrorCode::kNotFound, "timestep 5");
  EXPECT_FALSE(fs::exists(dir.File("x.idx")));
}

}  // namespace
}  // namespace hzio
