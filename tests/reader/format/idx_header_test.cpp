#include "hzio/format/idx_header.h"

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

using testing::GoldenPath;
using testing::ReadText;

// Headers OpenVisus wrote must come back byte-exact from ToText() (§1.8).
TEST(IdxHeader, GoldenHeadersRoundTripByteExact) {
  for (const char* rel : {"tiny/hz.idx", "tiny/rm.idx", "f32/visus.idx", "lz/visus.idx", "rgb_hz_raw/visus.idx",
                          "rgb_hz_zip/visus.idx"}) {
    const std::string text = ReadText(GoldenPath(rel));
    ASSERT_FALSE(text.empty()) << rel;
    IdxHeader h = IdxHeader::Parse(text, rel);
    EXPECT_EQ(h.ToText(), text) << rel;
  }
}

// §1.8 (c): three fields, three timesteps.
TEST(IdxHeader, FieldsTimeAndDefaults) {
  const std::string text =
      "(version)\n6\n(box)\n0 31 0 31 0 15\n(fields)\n"
      "temperature float32 default_compression(zip) default_layout() default_value(0) min(0) max(0) \n"
      "+ pressure float64 default_compression(zip) default_layout() default_value(0) min(0) max(0) \n"
      "+ mask uint8 default_compression(zip) default_layout() default_value(0) min(0) max(0) \n"
      "(bits)\nV01201201201201\n(bitsperblock)\n10\n(blocksperfile)\n16\n(interleave block)\n0\n"
      "(time)\n0 2 time_%02d/\n(filename_template)\n./visus/%04x.bin\n(missing_blocks)\n0\n(arco)\n0\n";
  IdxHeader h = IdxHeader::Parse(text, "c.idx");
  ASSERT_EQ(h.fields.size(), 3u);
  EXPECT_EQ(h.fields[1].name, "pressure");
  EXPECT_EQ(h.fields[1].dtype.ToString(), "float64");
  EXPECT_EQ(h.fields[2].compression, "zip");
  EXPECT_FALSE(h.fields[0].hz_layout);
  EXPECT_EQ(h.time.List(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(h.time.Format(2), "time_02/");
  EXPECT_EQ(h.box, (Box{Point{0, 0, 0}, Point{32, 32, 16}}));
  EXPECT_EQ(h.ToText(), text);
  EXPECT_EQ(h.FieldIndex("mask"), 2);
  EXPECT_THROW(h.FieldIndex("nope"), Error);
}

// §1.8 (d): legacy options, 5-D box for a 2-D bitmask, 4x4 logic_to_physic, unknown keys kept.
TEST(IdxHeader, LegacyShapesAndUnknownKeys) {
  const std::string text =
      "(version)\n6\n(logic_to_physic)\n1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\n(box)\n0 2047 0 1023 0 0 0 0 0 0\n"
      "(fields)\ntemperature uint8[3] compressed format(0) \n+ pressure uint8[3] compressed format(0) \n"
      "(bits)\nV001010101010101010101\n(bitsperblock)\n16\n(blocksperfile)\n32\n(interleave block)\n0\n"
      "(time)\n0 9 time%02d/\n(filename_template)\n./visus/%02x.bin\n(io mode)\nPIDX\n(physical box)\n0 1 0 1\n";
  IdxHeader h = IdxHeader::Parse(text, "midx.idx");
  EXPECT_EQ(h.dims(), 2);
  EXPECT_EQ(h.box, (Box{Point{0, 0}, Point{2048, 1024}}));
  EXPECT_EQ(h.fields[0].compression, "zip");
  EXPECT_TRUE(h.fields[0].hz_layout);
  EXPECT_EQ(h.logic_to_physic.size(), 9u);
  ASSERT_EQ(h.metadata.size(), 2u);
  EXPECT_EQ(h.metadata[0].first, "io mode");
  EXPECT_EQ(h.metadata[1].second, "0 1 0 1");
  EXPECT_NE(h.ToText().find("(io mode)\nPIDX\n"), std::string::npos);
}

// §1.7 defaults: bitsperblock, blocksperfile guess, template guess.
TEST(IdxHeader, ValidationDefaults) {
  IdxHeader h;
  h.box = Box{Point{0, 0, 0}, Point{300, 200, 100}};
  h.fields.push_back(Field::Parse("temp float64", 6));
  h.Validate("phys");
  EXPECT_EQ(h.bitmask.text(), "V012012012012012012012010");
  EXPECT_EQ(h.bits_per_block, 16);
  EXPECT_EQ(h.blocks_per_file, 256);
  EXPECT_EQ(h.filename_template, "./phys/%04x.bin");
  EXPECT_EQ(GuessFilenameTemplate("big", 39, 16), "./big/%02x/%04x.bin");
  EXPECT_EQ(GuessFilenameTemplate("big2", 50, 16), "./big2/%02x/%02x/%02x/%04x.bin");
}

// §1.9: the XML form with exclusive boxes.
TEST(IdxHeader, ParsesXmlForm) {
  const std::string xml =
      "<dataset name=\"rgb\" url=\"x?a=1&amp;b=2\" permissions=\"public\" typename=\"IdxDataset\">\n\t<idxfile>\n"
      "\t\t<version value=\"6\" />\n\t\t<bitmask value=\"V0101010101010\" />\n\t\t<box value=\"0 100 0 60\" />\n"
      "\t\t<bitsperblock value=\"6\" />\n\t\t<blocksperfile value=\"4\" />\n\t\t<block_interleaving value=\"0\" />\n"
      "\t\t<filename_template value=\"./visus/%04x.bin\" />\n\t\t<missing_blocks value=\"False\" />\n"
      "\t\t<arco value=\"0\" />\n\t\t<time_template value=\"\" />\n\t\t<axis value=\"\" />\n"
      "\t\t<field name=\"rgb\" description=\"\" index=\"\" default_compression=\"\" default_layout=\"hzorder\" "
      "default_value=\"0\" filter=\"\" dtype=\"uint8[3]\" />\n\t\t<timestep when=\"0\" />\n\t</idxfile>\n</dataset>\n";
  IdxHeader h = IdxHeader::Parse(xml, "rgb.xml");
  EXPECT_EQ(h.box, (Box{Point{0, 0}, Point{100, 60}}));
  EXPECT_EQ(h.bits_per_block, 6);
  EXPECT_TRUE(h.fields[0].hz_layout);
  EXPECT_EQ(h.fields[0].dtype.ToString(), "uint8[3]");
  IdxHeader again = IdxHeader::Parse(h.ToXml("rgb"), "again");
  EXPECT_EQ(again.ToText(), h.ToText());
}

TEST(IdxHeader, BadHeadersNameTheProblem) {
  struct Case {
    std::string text, expect;
  };
  const std::string ok_tail = "(fields)\nv uint8\n(bits)\nV0101\n";
  const Case cases[] = {
      {"(box)\n0 3 0 3\n" + ok_tail, "missing (version)"},
      {"(version)\n9\n(box)\n0 3 0 3\n" + ok_tail, "(version) 9"},
      {"(version)\n6\n(box)\n0 3 0 3\n(fields)\nv uint8\n(bits)\nV01x1\n", "bitmask 'V01x1'"},
      {"(version)\n6\n(box)\n0 3 0 3\n(fields)\nv uint8\n(bits)\nV01\n", "does not fit the bitmask"},
      {"(version)\n6\n(box)\n0 3 0 -5\n" + ok_tail, "is empty"},
      {"(version)\n6\n(box)\n0 3 0 3\n(fields)\nv floatish\n(bits)\nV0101\n", "dtype 'floatish'"},
      {"(version)\n6\n(box)\n0 3 0 3\n(bits)\nV0101\n", "missing (fields)"},
      {"(version)\n6\n(box)\n0 3 a 3\n" + ok_tail, "not an integer"},
      {"(version)\n6\n(box)\n0 3 0 3\n" + ok_tail + "(blocksperfile)\n99999999999\n", "block table"},
      {"garbage\n", "text before the first"},
  };
  for (const Case& c : cases) {
    try {
      IdxHeader::Parse(c.text, "bad.idx");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("bad.idx"), std::string::npos) << msg;
      EXPECT_NE(msg.find(c.expect), std::string::npos) << msg << " (wanted " << c.expect << ")";
    }
  }
}

}  // namespace
}  // namespace hzio

namespace hzio {
namespace {

// Found by the header fuzzer: an enormous (arco) used to shift past 63 bits and loop forever. It is
// now refused as absurd (more than OpenVisus's 32-bit (arco) holds), naming the file.
TEST(IdxHeader, AbsurdArcoIsAClearError) {
  const std::string head = "(version)\n6\n(box)\n0 3 0 3\n(fields)\nv float32\n(bits)\nV0101\n(arco)\n";
  EXPECT_HZIO_ERROR(IdxHeader::Parse(head + "9223372036854775807\n", "arco.idx"), ErrorCode::kInvalidArgument,
                    "arco.idx", "(arco) 9223372036854775807 is absurd", "2 GiB");
  EXPECT_HZIO_ERROR(IdxHeader::Parse(head + "7\n", "arco.idx"), ErrorCode::kInvalidArgument, "arco.idx",
                    "(arco) 7 is absurd", "two samples of 4 bytes");
  EXPECT_HZIO_ERROR(IdxHeader::Parse(head + "-1\n", "arco.idx"), ErrorCode::kInvalidArgument, "arco.idx",
                    "(arco) -1 is negative");
}

// §1.7 step 9: bitsperblock from the byte budget (clamped to maxh), blocksperfile 1, arco rounded
// down to a power of two of the widest field; whatever the header said for bpb and bpf.
TEST(IdxHeader, ArcoSetsBlockGeometry) {
  const std::string head = "(version)\n6\n(box)\n0 1023 0 1023\n(fields)\nv float32 + w uint8[3]\n(bits)\n"
                           "V01010101010101010101\n(bitsperblock)\n5\n(blocksperfile)\n64\n(arco)\n";
  IdxHeader h = IdxHeader::Parse(head + "1048576\n", "arco.idx");
  EXPECT_EQ(h.bits_per_block, 18);  // 1 MiB / 4 bytes
  EXPECT_EQ(h.blocks_per_file, 1);
  EXPECT_EQ(h.arco, 1048576);
  h = IdxHeader::Parse(head + "1000000\n", "arco.idx");  // not a power of two: rounded down
  EXPECT_EQ(h.bits_per_block, 17);
  EXPECT_EQ(h.arco, 524288);
  h = IdxHeader::Parse(head + "1073741824\n", "arco.idx");  // more than the whole dataset: maxh
  EXPECT_EQ(h.bits_per_block, 20);
  EXPECT_EQ(h.arco, 4194304);
  EXPECT_EQ(IdxHeader::Parse(h.ToText(), "again.idx").arco, h.arco);  // stable when read back
}

}  // namespace
}  // namespace hzio
