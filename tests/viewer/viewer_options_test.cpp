// hzio-viewer's command line (design.md §3): every documented option parses, bad input names the
// option that was wrong.
#include <gtest/gtest.h>

#include "hzio/util/error.h"
#include "viewer_options.h"

namespace hzio::viewer {
namespace {

ViewerOptions Parse(std::vector<std::string> args) { return ParseViewerOptions(args); }

std::string ErrorOf(std::vector<std::string> args) {
  try {
    ParseViewerOptions(args);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

TEST(ViewerOptions, DefaultsAreInteractive) {
  const ViewerOptions o = Parse({"data.idx"});
  EXPECT_EQ(o.dataset, "data.idx");
  EXPECT_FALSE(IsScripted(o));
  EXPECT_FALSE(o.level.has_value());
  EXPECT_FALSE(o.camera.has_value());
  EXPECT_EQ(o.width, 800);
  EXPECT_EQ(o.height, 600);
}

TEST(ViewerOptions, EveryDocumentedOption) {
  const ViewerOptions o = Parse({"http://127.0.0.1:9/mod_visus?dataset=x", "--field", "temp", "--time", "3",
                                 "--level", "17", "--size", "320x240", "--camera", "1,2,3,4,5,6,0,0,1",
                                 "--screenshot", "out.png", "--stats", "--render", "both", "--no-clip"});
  EXPECT_EQ(o.dataset, "http://127.0.0.1:9/mod_visus?dataset=x");
  EXPECT_EQ(o.field, "temp");
  EXPECT_EQ(o.time, 3);
  EXPECT_EQ(o.level, 17);
  EXPECT_EQ(o.width, 320);
  EXPECT_EQ(o.height, 240);
  ASSERT_TRUE(o.camera.has_value());
  EXPECT_EQ(o.camera->position, (std::array<double, 3>{1, 2, 3}));
  EXPECT_EQ(o.camera->focal_point, (std::array<double, 3>{4, 5, 6}));
  EXPECT_EQ(o.camera->view_up, (std::array<double, 3>{0, 0, 1}));
  EXPECT_EQ(o.screenshot, "out.png");
  EXPECT_TRUE(o.stats);
  EXPECT_TRUE(IsScripted(o));
  EXPECT_EQ(o.render, RenderMode::kBoth);
  EXPECT_TRUE(o.no_clip);
}

TEST(ViewerOptions, BadInputNamesTheOption) {
  EXPECT_NE(ErrorOf({"d.idx", "--level", "x"}).find("--level"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--level", "-1"}).find("--level"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--size", "320"}).find("--size"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--size", "8x8"}).find("--size"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--camera", "1,2,3"}).find("9 numbers"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--camera", "1,2,3,1,2,3,0,0,1"}).find("same point"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--camera", "0,0,0,1,1,1,0,0,0"}).find("view-up"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--time"}).find("--time needs a value"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(ErrorOf({"a.idx", "b.idx"}).find("b.idx"), std::string::npos);
  EXPECT_NE(ErrorOf({"--screenshot", "x.png"}).find("need a DATASET"), std::string::npos);
  EXPECT_NE(ErrorOf({"d.idx", "--render", "points"}).find("--render"), std::string::npos);
}

}  // namespace
}  // namespace hzio::viewer
