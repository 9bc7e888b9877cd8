#include "hzio/format/block_table.h"

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/util/error.h"

namespace hzio {
namespace {

// idx-format.md §4.8: the header of tiny/hz/0000.bin, byte for byte.
TEST(BlockTable, WorkedExampleByteForByte) {
  std::vector<uint8_t> file = testing::ReadBytes(testing::GoldenPath("tiny/hz/0000.bin"));
  ASSERT_EQ(file.size(), 128u);
  std::vector<BlockEntry> entries = DecodeBlockTable(file.data(), 120, 6, 2, file.size(), "0000.bin");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].offset, 120u);
  EXPECT_EQ(entries[0].size, 4u);
  EXPECT_EQ(entries[0].flags, 0u);
  EXPECT_EQ(entries[1].offset, 124u);
  std::vector<uint8_t> encoded = EncodeBlockTable(entries);
  EXPECT_EQ(encoded, std::vector<uint8_t>(file.begin(), file.begin() + 120));
  const std::vector<uint8_t> payload(file.begin() + 120, file.end());
  EXPECT_EQ(payload, (std::vector<uint8_t>{0x00, 0x02, 0x14, 0x16, 0x01, 0x15, 0x03, 0x17}));
}

TEST(BlockTable, SixtyFourBitOffsetsLowWordFirst) {
  std::vector<BlockEntry> e(1);
  e[0].offset = (uint64_t{5} << 32) | 0x78;
  e[0].size = 7;
  e[0].flags = 0x13;
  std::vector<uint8_t> bytes = EncodeBlockTable(e);
  EXPECT_EQ(bytes[40 + 11], 0x78);  // word 2, big-endian, low 32 bits
  EXPECT_EQ(bytes[40 + 15], 5);     // word 3, high 32 bits
  std::vector<BlockEntry> back = DecodeBlockTable(bytes.data(), static_cast<int64_t>(bytes.size()), 6, 1,
                                                  (uint64_t{6} << 32), "big.bin");
  EXPECT_EQ(back[0].offset, e[0].offset);
  EXPECT_TRUE(back[0].row_major());
  EXPECT_EQ(back[0].codec_code(), 3);
}

TEST(BlockTable, CorruptOrTruncatedTablesAreReported) {
  std::vector<uint8_t> file = testing::ReadBytes(testing::GoldenPath("tiny/hz/0000.bin"));
  try {
    DecodeBlockTable(file.data(), 100, 6, 2, file.size(), "short.bin");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorrupt);
    EXPECT_NE(std::string(e.what()).find("short.bin: truncated block table"), std::string::npos);
  }
  file[40 + 16 + 3] = 0xff;  // size of entry 0 far past the end
  try {
    DecodeBlockTable(file.data(), 120, 6, 2, file.size(), "bad.bin");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.bin: corrupt block table: entry 0"), std::string::npos) << e.what();
  }
  // Absent entries: offset 0, or size 0 (the Python re-packer's form) are not errors.
  BlockEntry absent{500, 0, 3};
  EXPECT_FALSE(absent.Present());
}

}  // namespace
}  // namespace hzio
