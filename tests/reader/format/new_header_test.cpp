#include "hzio/format/new_header.h"

#include <gtest/gtest.h>

#include "hzio/util/error.h"

namespace hzio {
namespace {

Field MakeField(const std::string& name, const std::string& dtype) {
  Field f;
  f.name = name;
  f.dtype = DType::Parse(dtype);
  return f;
}

// What OpenVisus's CreateIdx writes for the same dims (§2.1 guess, §2.4 template).
TEST(NewIdxHeader, LikeCreateIdx) {
  NewHeaderOptions options;
  options.compression = "lz4";
  options.hz_layout = true;
  options.time = std::make_pair(int64_t{3}, int64_t{5});
  const IdxHeader h = NewIdxHeader("sim", Point{70, 45, 33}, {MakeField("a", "float32"), MakeField("b", "uint8[3]")},
                                   options);
  EXPECT_EQ(h.version, 6);
  EXPECT_EQ(h.box, Box(Point{0, 0, 0}, Point{70, 45, 33}));
  EXPECT_EQ(h.bitmask, Bitmask::Guess(Point{70, 45, 33}));
  EXPECT_EQ(h.bits_per_block, 16);
  EXPECT_EQ(h.blocks_per_file, static_cast<int64_t>(h.total_blocks()));  // -1: everything in one file
  ASSERT_EQ(h.fields.size(), 2u);
  EXPECT_EQ(h.fields[1].compression, "lz4");
  EXPECT_TRUE(h.fields[1].hz_layout);
  EXPECT_TRUE(h.has_time);
  EXPECT_EQ(h.time.List(), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(h.filename_template, GuessFilenameTemplate("sim", h.maxh(), h.bits_per_block));
  EXPECT_EQ(h.time.tmpl, "time_%04d/");
}

TEST(NewIdxHeader, DefaultsAreOneTimestepZipRowMajor) {
  const IdxHeader h = NewIdxHeader("visus", Point{64, 32}, {MakeField("data", "int16")}, {});
  EXPECT_FALSE(h.has_time);
  EXPECT_EQ(h.time.List(), std::vector<int64_t>{0});
  EXPECT_EQ(h.fields[0].compression, "zip");
  EXPECT_FALSE(h.fields[0].hz_layout);
  EXPECT_EQ(h.bits_per_block, 11);  // min(maxh, 16)
}

TEST(NewIdxHeader, RejectsFieldNamesOpenVisusMisreads) {
  for (const auto& [name, message] : std::vector<std::pair<std::string, std::string>>{
           {"", "empty field name"},
           {"a b", "field name 'a b' may only use letters"},
           {"p+q", "field name 'p+q' may only use letters"},
           {"uncompressed", "contains 'compressed'"}}) {
    try {
      NewIdxHeader("visus", Point{8, 8}, {MakeField(name, "uint8")}, {});
      ADD_FAILURE() << name;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(CheckNewFieldName("Velocity_x-2.5"));
}

}  // namespace
}  // namespace hzio
