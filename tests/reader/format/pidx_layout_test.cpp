// Headers PIDX 0.9.3 writes (idx-format.md §1.2, §1.4, §1.5, §1.7, §4.4, §4.5, §8.16):
// `(version) 6.1`, extra keys kept verbatim, 5-D boxes, `n*float64`, `time%09d/`, `%02x`,
// blocksperfile beyond the block count, and the layouts hzio refuses (chunked, other io modes).
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/format/block_files.h"
#include "hzio/format/block_table.h"
#include "hzio/format/idx_header.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

using testing::ReadText;

std::string PidxGolden(const std::string& rel) {
  return std::string(HZIO_SOURCE_DIR) + "/../shared/testdata/pidx-golden/" + rel;
}

void ExpectUnsupported(const std::string& text, const std::string& substring) {
  try {
    (void)IdxHeader::Parse(text, "p.idx");
    ADD_FAILURE() << "accepted: " << substring;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported) << e.what();
    EXPECT_NE(std::string(e.what()).find("p.idx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

TEST(PidxHeader, GoldenHeadersParseAsOpenVisusReadsThem) {
  const std::string text = ReadText(PidxGolden("mixed_n2.idx"));
  ASSERT_FALSE(text.empty());
  IdxHeader h = IdxHeader::Parse(text, "mixed_n2.idx", "mixed_n2");
  EXPECT_EQ(h.version, 6);  // std::stoi("6.1"), as OpenVisus reads it
  EXPECT_EQ(h.version_text, "6.1");
  EXPECT_EQ(h.box, (Box{Point{0, 0, 0}, Point{16, 16, 32}}));  // 5-D (box) cut to the bitmask's 3 axes
  EXPECT_EQ(h.bitmask.text(), "V2210210210210");
  ASSERT_EQ(h.fields.size(), 4u);
  EXPECT_EQ(h.fields[1].name, "velocity");
  EXPECT_EQ(h.fields[1].dtype.ToString(), "float64[3]");  // 3*float64
  EXPECT_EQ(h.fields[3].dtype.ToString(), "int32");
  EXPECT_EQ(h.bits_per_block, 12);
  EXPECT_EQ(h.total_blocks(), 2u);
  EXPECT_EQ(h.blocks_per_file, 128);  // kept although there are only 2 blocks (§1.7 step 7)
  EXPECT_EQ(h.time.List(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(h.time.Format(1), "time000000001/");
  const std::vector<std::pair<std::string, std::string>> extra = {
      {"io mode", "idx"},         {"partition size", "16 16 32"}, {"partition offset", "0 0 0"},
      {"partition index", "0"},   {"endian", "little"},           {"restructure box size", "16 16 16"},
      {"cores", "2"},             {"compression bit rate", "64.000000"}, {"compression type", "0"}};
  EXPECT_EQ(h.metadata, extra);
  ASSERT_NE(h.Metadata("cores"), nullptr);
  EXPECT_EQ(*h.Metadata("cores"), "2");
  EXPECT_EQ(h.Metadata("nope"), nullptr);

  // Written back: the version and every extra key verbatim; reading that again changes nothing.
  const std::string out = h.ToText();
  EXPECT_EQ(out.rfind("(version)\n6.1\n", 0), 0u) << out;
  for (const auto& [k, v] : extra) EXPECT_NE(out.find("(" + k + ")\n" + v + "\n"), std::string::npos) << k;
  EXPECT_EQ(IdxHeader::Parse(out, "again.idx", "mixed_n2").ToText(), out);

  // Files: `%02x` named by the first block of a 128-slot file, time inserted before it (§4.4);
  // the table is sized by the declared 128 slots per field (§4.5, §8.16).
  BlockFiles files(h, "/d");
  EXPECT_EQ(files.FilePath(0, 0), "/d/mixed_n2/time000000000/00.bin");
  EXPECT_EQ(files.FilePath(1, 1), "/d/mixed_n2/time000000001/00.bin");
  EXPECT_EQ(files.PositionInFile(1), 1);
  EXPECT_EQ(BlockTableBytes(6, 128 * 4), 40 + 40 * 128 * 4);

  for (const char* other : {"mixed_n4.idx", "s3d_n2.idx"}) {
    IdxHeader o = IdxHeader::Parse(ReadText(PidxGolden(other)), other);
    EXPECT_EQ(o.version_text, "6.1") << other;
    EXPECT_EQ(o.dims(), 3) << other;
    EXPECT_GT(o.blocks_per_file, static_cast<int64_t>(o.total_blocks())) << other;
  }
}

TEST(PidxHeader, LayoutsHzioCannotReadYetAreRefused) {
  try {
    (void)IdxHeader::Parse(ReadText(PidxGolden("s3dchunk_n2.idx")), "s3dchunk_n2.idx");
    ADD_FAILURE() << "the chunked layout was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("s3dchunk_n2.idx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("PIDX chunked layout: not yet supported"), std::string::npos) << e.what();
  }
  const std::string base = "(version)\n6.1\n(box)\n0 3 0 3 0 0 0 0 0 0\n(fields)\na 1*float64\n(bits)\nV0101\n";
  EXPECT_EQ(IdxHeader::Parse(base + "(compression type)\n0\n(io mode)\nidx\n(endian)\nlittle\n", "p.idx").dims(), 2);
  ExpectUnsupported(base + "(compression type)\n2\n", "PIDX chunked zfp layout");
  ExpectUnsupported(base + "(compression type)\n7\n", "(compression type) 7 is not a PIDX layout");
  ExpectUnsupported(base + "(compression type)\nfast\n", "'fast' is not a PIDX layout");
  ExpectUnsupported(base + "(io mode)\nraw\n", "PIDX io mode 'raw'");
  ExpectUnsupported(base + "(io mode)\nl_part_idx\n", "PIDX io mode 'l_part_idx'");
  ExpectUnsupported(base + "(endian)\nbig\n", "(endian) big");
}

TEST(PidxHeader, VersionIsItsLeadingInteger) {
  const std::string rest = "(box)\n0 3 0 3\n(fields)\na float32\n(bits)\nV0101\n";
  EXPECT_EQ(IdxHeader::Parse("(version)\n6\n" + rest, "v.idx").version_text, "");
  EXPECT_EQ(IdxHeader::Parse("(version)\n6.1\n" + rest, "v.idx").version, 6);
  EXPECT_EQ(IdxHeader::Parse("(version)\n5.9\n" + rest, "v.idx").version, 5);
  for (const char* bad : {"x6", "", ".5"}) {
    try {
      (void)IdxHeader::Parse(std::string("(version)\n") + bad + "\n" + rest, "v.idx");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("(version)"), std::string::npos) << e.what();
    }
  }
  try {
    (void)IdxHeader::Parse("(version)\n7.0\n" + rest, "v.idx");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not 1..6"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hzio
