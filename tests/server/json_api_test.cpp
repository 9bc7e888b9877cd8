// The JSON API of design.md §5: list, metadata (with every level's grid), data as npy/raw with
// raw/zip/lz4, health, and the one error shape with its status table.
#include "handlers/json_api.h"

#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "hzio/codec/codec.h"
#include "test_support.h"

namespace hzio::server {
namespace {

using nlohmann::json;
using testing::Get;

class JsonApi : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = testing::GoldenContext(); }
  std::unique_ptr<ServerContext> ctx_;
};

void ExpectError(const Reply& r, int status, const std::string& code) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.Get("Content-Type"), "application/json");
  json j = json::parse(r.body);
  ASSERT_TRUE(j.contains("error")) << r.body;
  EXPECT_EQ(j["error"]["code"], code) << r.body;
  EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
}

TEST_F(JsonApi, ListsDatasetsWithUrls) {
  Reply r = Get(*ctx_, "/api/v1/datasets");
  ASSERT_EQ(r.status, 200);
  json j = json::parse(r.body);
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[0]["name"], "rgb");
  EXPECT_EQ(j[0]["url"], "http://127.0.0.1:8080/mod_visus?dataset=rgb");
  EXPECT_EQ(j[1]["group"], "g1");
}

TEST_F(JsonApi, MetadataHasEveryLevelGrid) {
  Reply r = Get(*ctx_, "/api/v1/datasets/rgb");
  ASSERT_EQ(r.status, 200);
  json j = json::parse(r.body);
  EXPECT_EQ(j["dims"], json({100, 60}));
  EXPECT_EQ(j["bitmask"], "V0101010101010");
  EXPECT_EQ(j["maxh"], 13);
  EXPECT_EQ(j["bitsperblock"], 6);
  EXPECT_EQ(j["fields"][0]["name"], "rgb");
  EXPECT_EQ(j["fields"][0]["dtype"], "uint8[3]");
  EXPECT_EQ(j["fields"][0]["components"], 3);
  EXPECT_EQ(j["timesteps"], json({0}));
  ASSERT_EQ(j["levels"].size(), 14u);
  EXPECT_EQ(j["levels"][13]["shape"], json({100, 60}));
  EXPECT_EQ(j["levels"][9]["shape"], json({25, 15}));
  EXPECT_EQ(j["levels"][9]["stride"], json({4, 4}));
  EXPECT_EQ(j["logic_box"]["p2"], json({100, 60}));
}

TEST_F(JsonApi, DataNpyEqualsTheLibraryReader) {
  auto ds = ctx_->registry.Find("f32")->dataset;
  BoxQuery q;
  q.box = Box::ParseRanges("2:14,1:7,0:4");
  q.level = 7;
  BoxResult want = ds->Read(q);
  for (const std::string compression : {"raw", "zip", "lz4"}) {
    Reply r = Get(*ctx_, "/api/v1/datasets/f32/data?box=2:14,1:7,0:4&level=7&format=npy&compression=" + compression);
    ASSERT_EQ(r.status, 200) << r.body;
    const size_t decoded = std::stoul(r.Get("X-Hzio-Decoded-Size"));
    std::vector<uint8_t> body(decoded);
    Decode(CodecSpec::Parse(compression).codec, reinterpret_cast<const uint8_t*>(r.body.data()), r.body.size(),
           body.data(), body.size(), "reply");
    ASSERT_EQ(std::string(reinterpret_cast<char*>(body.data()), 6), "\x93NUMPY");
    const size_t header = 10 + body[8] + 256 * body[9];
    EXPECT_EQ(header % 64, 0u);
    const std::string dict(reinterpret_cast<char*>(body.data()) + 10, header - 10);
    std::vector<int64_t> shape = want.data.NumpyShape();
    EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos) << dict;
    EXPECT_EQ(r.Get("X-Hzio-Shape"), std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "," + std::to_string(shape[2]));
    ASSERT_EQ(body.size() - header, static_cast<size_t>(want.data.ByteSize()));
    EXPECT_EQ(0, std::memcmp(body.data() + header, want.data.data(), body.size() - header));
    EXPECT_EQ(r.Get("X-Hzio-Level"), "7");
    EXPECT_EQ(r.Get("X-Hzio-Box"), want.grid.LogicBox().ToRangesString());
  }
  Reply raw = Get(*ctx_, "/api/v1/datasets/f32/data?box=2:14,1:7,0:4&level=7&format=raw");
  ASSERT_EQ(raw.body.size(), static_cast<size_t>(want.data.ByteSize()));
  EXPECT_EQ(0, std::memcmp(raw.body.data(), want.data.data(), raw.body.size()));
}

TEST_F(JsonApi, DefaultsAreTheWholeDatasetAtFullResolution) {
  Reply r = Get(*ctx_, "/api/v1/datasets/rgb/data?format=raw");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), 100u * 60u * 3u);
  EXPECT_EQ(r.Get("X-Hzio-Shape"), "60,100,3");
  EXPECT_EQ(r.Get("X-Hzio-Level"), "13");
}

TEST_F(JsonApi, Errors) {
  ExpectError(Get(*ctx_, "/api/v1/datasets/nope"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v1/datasets/nope/data"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v1/nothing"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v2/datasets"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?field=nofield"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?time=4"), 404, "not_found");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?level=14"), 400, "out_of_range");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?level=x"), 400, "invalid_argument");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?box=0:10"), 400, "invalid_argument");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?box=10:0,0:5"), 400, "invalid_argument");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?box=500:600,0:5"), 400, "out_of_range");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?format=png"), 400, "invalid_argument");
  ExpectError(Get(*ctx_, "/api/v1/datasets/rgb/data?compression=zfp"), 400, "invalid_argument");
  ExpectError(Get(*ctx_, "/api/v1/datasets", "POST"), 405, "method_not_allowed");
  ExpectError(Get(*ctx_, "/api/v1/datasets?x=%zz"), 400, "invalid_argument");
}

TEST(JsonApiLimits, TooLargeIs413) {
  ServerOptions o;
  o.max_query_bytes = 5000;
  auto ctx = testing::GoldenContext(o);
  ExpectError(Get(*ctx, "/api/v1/datasets/rgb/data"), 413, "too_large");
  EXPECT_EQ(Get(*ctx, "/api/v1/datasets/rgb/data?level=8").status, 200);
}

TEST(JsonApiStatus, OneTableMapsCodes) {
  EXPECT_EQ(JsonErrorStatus(ErrorCode::kInvalidArgument), 400);
  EXPECT_EQ(JsonErrorStatus(ErrorCode::kNotFound), 404);
  EXPECT_EQ(JsonErrorStatus(ErrorCode::kTooLarge), 413);
  EXPECT_EQ(JsonErrorStatus(ErrorCode::kCorrupt), 500);
  EXPECT_EQ(JsonErrorStatus(ErrorCode::kUnavailable), 503);
}

TEST_F(JsonApi, HealthReportsTheCache) {
  Get(*ctx_, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=13");
  Reply r = Get(*ctx_, "/api/v1/health");
  ASSERT_EQ(r.status, 200);
  json j = json::parse(r.body);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["datasets"], 6);
  EXPECT_GT(j["cache"]["misses"].get<int64_t>(), 0);
}

TEST_F(JsonApi, CorsPreflightAndExposedHeaders) {
  Reply pre = Get(*ctx_, "/api/v1/datasets/rgb/data", "OPTIONS");
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(pre.Get("Access-Control-Allow-Origin"), "*");
  EXPECT_NE(pre.Get("Access-Control-Allow-Methods").find("GET"), std::string::npos);
  Reply r = Get(*ctx_, "/api/v1/datasets/rgb/data?level=5");
  EXPECT_NE(r.Get("Access-Control-Expose-Headers").find("X-Hzio-Shape"), std::string::npos);
}

}  // namespace
}  // namespace hzio::server
