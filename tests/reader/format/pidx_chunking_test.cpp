// PIDX 0.9.3's chunked layout (format/pidx_chunking.h, idx-format.md §1.2): the dataset hzio
// presents (the full sample grid, `(bits)` extended by the chunk's bits), the stored header its
// block files obey, where each component's run lies in the chunk records, and the chunkings hzio
// refuses with an error naming the key.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/format/idx_header.h"
#include "hzio/format/pidx_chunking.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

using testing::ReadText;

std::string PidxGolden(const std::string& rel) {
  return std::string(HZIO_SOURCE_DIR) + "/../shared/testdata/pidx-golden/" + rel;
}

void ExpectError(const std::string& text, ErrorCode code, const std::string& substring) {
  try {
    (void)IdxHeader::Parse(text, "c.idx");
    ADD_FAILURE() << "accepted: " << substring;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find("c.idx"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

TEST(PidxChunking, GoldenDatasetIsPresentedAsItsUnchunkedTwin) {
  const IdxHeader h = IdxHeader::Parse(ReadText(PidxGolden("s3dchunk_n2.idx")), "s3dchunk_n2.idx", "s3dchunk_n2");
  const IdxHeader twin = IdxHeader::Parse(ReadText(PidxGolden("s3d_n2.idx")), "s3d_n2.idx", "s3d_n2");
  ASSERT_TRUE(h.pidx_chunking.has_value());
  EXPECT_FALSE(twin.pidx_chunking.has_value());
  EXPECT_EQ(h.box, (Box{Point{0, 0, 0}, Point{16, 16, 32}}));
  EXPECT_EQ(h.bitmask.text(), "V2210210210210");  // V2210210 + the chunk's 210210
  EXPECT_EQ(h.bitmask.text(), twin.bitmask.text());
  EXPECT_EQ(h.bits_per_block, 12);  // 6 stored + the chunk's 6 bits
  EXPECT_EQ(h.total_blocks(), twin.total_blocks());
  const PidxChunking& c = *h.pidx_chunking;
  EXPECT_EQ(c.chunk, (Point{4, 4, 4}));
  EXPECT_EQ(c.patch, (Point{16, 16, 16}));
  EXPECT_EQ(c.stored_bitmask.text(), "V2210210");
  EXPECT_EQ(c.stored_bits_per_block, 6);
  EXPECT_EQ(c.within_bits, "210210");
  EXPECT_EQ(c.RecordValues(), 64);
  // Its text form is the presented dataset's plain IDX header: no key says "chunked" any more.
  const std::string text = h.ToText();
  EXPECT_EQ(text.find("(compression type)"), std::string::npos) << text;
  EXPECT_NE(text.find("V2210210210210"), std::string::npos) << text;
  EXPECT_FALSE(IdxHeader::Parse(text, "again.idx", "s3dchunk_n2").pidx_chunking.has_value());

  const IdxHeader s = PidxStoredHeader(h);
  EXPECT_FALSE(s.pidx_chunking.has_value());
  EXPECT_EQ(s.box, (Box{Point{0, 0, 0}, Point{4, 4, 8}}));  // the chunk grid
  EXPECT_EQ(s.bitmask.text(), "V2210210");
  EXPECT_EQ(s.bits_per_block, 6);
  ASSERT_EQ(s.fields.size(), 4u);
  EXPECT_EQ(s.fields[0].dtype.ToString(), "float64[64]");   // one chunk record per HZ sample
  EXPECT_EQ(s.fields[1].dtype.ToString(), "float64[192]");  // 3 components
  EXPECT_EQ(s.total_blocks(), 2u);
}

TEST(PidxChunking, ComponentRunsFollowPidxChunkOrderInsideEachPatch) {
  const IdxHeader h = IdxHeader::Parse(ReadText(PidxGolden("s3dchunk_n2.idx")), "s3dchunk_n2.idx", "s3dchunk_n2");
  const PidxChunkMap map(h);
  EXPECT_EQ(map.record_values(), 64);
  EXPECT_EQ(map.WithinIndex(1, 2, 3), 1 + 4 * 2 + 16 * 3);
  // A scalar's record is its own chunk.
  PidxChunkMap::RunAt at = map.Locate(Point{2, 3, 5}, 0, 1);
  EXPECT_EQ(at.record_chunk, (Point{2, 3, 5}));
  EXPECT_EQ(at.value_offset, 0);
  // 3 components, patches of 4x4x4 chunks: component c of chunk j (x fastest in its patch) is run
  // (c*64 + j) of the patch's buffer, in record (c*64 + j) / 3 at (c*64 + j) % 3 runs of 64.
  at = map.Locate(Point{0, 0, 0}, 0, 3);
  EXPECT_EQ(at.record_chunk, (Point{0, 0, 0}));
  EXPECT_EQ(at.value_offset, 0);
  at = map.Locate(Point{1, 0, 0}, 0, 3);  // run 1: record 0, second run
  EXPECT_EQ(at.record_chunk, (Point{0, 0, 0}));
  EXPECT_EQ(at.value_offset, 64);
  at = map.Locate(Point{0, 0, 0}, 1, 3);  // run 64: record 21 = (1,1,1), second run
  EXPECT_EQ(at.record_chunk, (Point{1, 1, 1}));
  EXPECT_EQ(at.value_offset, 64);
  at = map.Locate(Point{3, 3, 3}, 2, 3);  // run 191: record 63 = (3,3,3), third run
  EXPECT_EQ(at.record_chunk, (Point{3, 3, 3}));
  EXPECT_EQ(at.value_offset, 128);
  at = map.Locate(Point{0, 0, 4}, 1, 3);  // the second patch (z chunks 4..7) starts over
  EXPECT_EQ(at.record_chunk, (Point{1, 1, 5}));
  EXPECT_EQ(at.value_offset, 64);
  EXPECT_EQ(map.StoredHz(Point{0, 0, 0}), 0u);
}

TEST(PidxChunking, ChunkBitsHalveTheLargestAxisHighestFirst) {
  const std::string two_d = "(version)\n6.1\n(box)\n0 15 0 7 0 0 0 0 0 0\n(fields)\na 1*float32\n(bits)\nV0101\n"
                            "(compression type)\n1\n";
  const IdxHeader h = IdxHeader::Parse(two_d, "c.idx");
  ASSERT_TRUE(h.pidx_chunking.has_value());
  EXPECT_EQ(h.pidx_chunking->within_bits, "1010");
  EXPECT_EQ(h.bitmask.text(), "V01011010");
  EXPECT_EQ(h.box, (Box{Point{0, 0}, Point{16, 8}}));
  const std::string sized = "(version)\n6.1\n(box)\n0 31 0 3 0 1 0 0 0 0\n(fields)\na 1*float32\n(bits)\nV0012\n"
                            "(compression type)\n1\n(compressed box)\n8 2 1\n";
  const IdxHeader s = IdxHeader::Parse(sized, "c.idx");
  EXPECT_EQ(s.pidx_chunking->chunk, (Point{8, 2, 1}));
  EXPECT_EQ(s.pidx_chunking->within_bits, "0010");  // 8x2x1: x, x, then the 2x2 tie goes to y
  EXPECT_EQ(s.pidx_chunking->RecordValues(), 16);
}

TEST(PidxChunking, ChunkingsHzioCannotPlaceAreRefusedNamingTheKey) {
  const std::string head = "(version)\n6.1\n(compression type)\n1\n";
  const std::string fields = "(fields)\na 1*float64\n";
  ExpectError(head + "(box)\n4 19 0 15 0 15 0 0 0 0\n" + fields + "(bits)\nV012012\n", ErrorCode::kUnsupported,
              "does not start at 0");
  ExpectError(head + "(box)\n0 15 0 15 0 15 0 0 0 0\n" + fields + "(bits)\nV012012\n(compressed box)\n3 4 4\n",
              ErrorCode::kUnsupported, "not a power of two");
  ExpectError(head + "(box)\n0 15 0 15 0 15 0 0 0 0\n(fields)\nv 3*float64\n(bits)\nV012012\n",
              ErrorCode::kUnsupported, "(restructure box size) is missing");
  ExpectError(head + "(box)\n0 15 0 15 0 15 0 0 0 0\n(fields)\nv 3*float64\n(bits)\nV012012\n"
                     "(restructure box size)\n6 16 16\n",
              ErrorCode::kUnsupported, "is not whole chunks");
  ExpectError(head + "(box)\n0 31 0 15 0 15 0 0 0 0\n" + fields + "(bits)\nV012012\n", ErrorCode::kInvalidArgument,
              "needs 8 chunks on axis 0");
  ExpectError(head + "(box)\n0 15 0 15 0 15 0 3 0 0\n" + fields + "(bits)\nV0123012\n", ErrorCode::kUnsupported,
              "PIDX chunks at most 3");
  ExpectError(head + "(box)\n0 15 0 15 0 15 0 0 0 0\n" + fields + "(bits)\nV012012\n(restructure box size)\n0 4 4\n",
              ErrorCode::kInvalidArgument, "must hold positive sizes");
}

}  // namespace
}  // namespace hzio
