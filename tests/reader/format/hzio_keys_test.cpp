// hzio's own header keys (format/hzio_keys.h): kept through parse/print, OpenVisus-neutral.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "hzio/format/hzio_keys.h"

namespace hzio {
namespace {

using testing::ThrowsError;

IdxHeader Header() {
  IdxHeader h;
  h.box = Box{Point{0, 0}, Point{16, 16}};
  h.fields.push_back(Field::Parse("a float32", 6));
  h.fields.push_back(Field::Parse("b uint8", 6));
  h.time = TimeSpec::Range(0, 4, "time_%04d/");
  h.has_time = true;
  h.Validate("visus");
  return h;
}

TEST(HzioKeys, GenerationDefaultsToOneAndSurvivesTheText) {
  IdxHeader h = Header();
  EXPECT_EQ(Generation(h), 1);
  SetGeneration(h, 3);
  const IdxHeader back = IdxHeader::Parse(h.ToText(), "t.idx");
  EXPECT_EQ(Generation(back), 3);
  EXPECT_NE(h.ToText().find("(hzio generation)\n3\n"), std::string::npos);
  SetGeneration(h, 1);
  EXPECT_EQ(MetadataValue(h, kGenerationKey), std::nullopt);
  SetMetadataValue(h, kGenerationKey, "zero");
  EXPECT_TRUE(ThrowsError([&] { Generation(h); }, ErrorCode::kInvalidArgument, {"(hzio generation)"}));
  SetMetadataValue(h, kGenerationKey, "0");
  EXPECT_TRUE(ThrowsError([&] { Generation(h); }, ErrorCode::kInvalidArgument, {"(hzio generation)", "not >= 1"}));
}

TEST(HzioKeys, WrittenPartsRoundTripAsRanges) {
  WrittenParts w = WrittenParts::Parse("b@-3:-1,7 a@0:2,5");
  EXPECT_TRUE(w.Contains("a", 1));
  EXPECT_FALSE(w.Contains("a", 3));
  EXPECT_TRUE(w.Contains("b", -2));
  w.Add("a", 3);
  w.Add("a", 4);
  EXPECT_EQ(w.ToText(), "a@0:5 b@-3:-1,7");
  EXPECT_EQ(WrittenParts::Parse(w.ToText()).ToText(), w.ToText());
  EXPECT_TRUE(ThrowsError([] { WrittenParts::Parse("a-0"); }, ErrorCode::kInvalidArgument, {"(hzio written)", "NAME@TIMES"}));
  EXPECT_TRUE(ThrowsError([] { WrittenParts::Parse("a@5:2"); }, ErrorCode::kInvalidArgument, {"(hzio written)", "5:2"}));
  EXPECT_TRUE(ThrowsError([] { WrittenParts::Parse("a@x"); }, ErrorCode::kInvalidArgument, {"(hzio written)"}));
}

TEST(HzioKeys, NeverWrittenPartsFollowTheRecord) {
  IdxHeader h = Header();
  EXPECT_TRUE(NeverWrittenParts(h).empty());  // no record: everything counts as written
  WrittenParts::Parse("a@0:1,3").StoreInto(h);
  const IdxHeader back = IdxHeader::Parse(h.ToText(), "t.idx");
  const std::vector<UnwrittenPart> parts = NeverWrittenParts(back);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].field, "a");
  EXPECT_EQ(parts[0].times, "2,4");
  EXPECT_EQ(parts[1].field, "b");
  EXPECT_EQ(parts[1].times, "0:4");
  EXPECT_EQ(parts[1].list, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  WrittenParts().StoreInto(h);  // created, nothing written: the key is there, empty
  EXPECT_NE(h.ToText().find("(hzio written)\n\n"), std::string::npos);
  EXPECT_EQ(NeverWrittenParts(IdxHeader::Parse(h.ToText(), "t.idx")).size(), 2u);
}

}  // namespace
}  // namespace hzio
