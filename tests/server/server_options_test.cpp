// Command line and --config parsing of hzio serve (design.md §3).
#include "config/server_options.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hzio/util/error.h"
#include "test_support.h"

namespace hzio::server {
namespace {

namespace fs = std::filesystem;

ServerOptions Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "serve");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  bool help = false;
  return ParseServeArgs(static_cast<int>(argv.size()), argv.data(), &help);
}

TEST(ServerOptions, DefaultsBindLoopback) {
  ServerOptions o = Parse({});
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 8080);
}

TEST(ServerOptions, NamesFromStemsParentsAndExplicitNames) {
  ServerOptions o = Parse({hzio::testing::GoldenPath("tiny/hz.idx"), hzio::testing::GoldenPath("f32/visus.idx"),
                           "mine=" + hzio::testing::GoldenPath("lz/visus.idx"), "--port", "0", "--cache-mb=64"});
  ASSERT_EQ(o.datasets.size(), 3u);
  EXPECT_EQ(o.datasets[0].name, "hz");
  EXPECT_EQ(o.datasets[1].name, "f32");
  EXPECT_EQ(o.datasets[2].name, "mine");
  EXPECT_EQ(o.port, 0);
  EXPECT_EQ(o.cache_bytes, int64_t{64} << 20);
}

TEST(ServerOptions, FoldersAreScannedRecursively) {
  ServerOptions o = Parse({HZIO_GOLDEN_DIR});
  std::vector<std::string> names;
  for (auto& d : o.datasets) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"f32", "lz", "rgb_hz_raw", "rgb_hz_zip", "hz", "rm"}));
}

TEST(ServerOptions, ErrorsNameTheProblem) {
  auto message = [](std::vector<std::string> args) {
    try {
      Parse(args);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"/no/such.idx"}).find("/no/such.idx"), std::string::npos);
  EXPECT_NE(message({hzio::testing::GoldenPath("tiny/hz.idx"), hzio::testing::GoldenPath("tiny/hz.idx")}).find("used twice"),
            std::string::npos);
  EXPECT_NE(message({"--port", "70000"}).find("--port"), std::string::npos);
  EXPECT_NE(message({"--bogus", "1"}).find("--bogus"), std::string::npos);
  EXPECT_NE(message({"--port"}).find("needs a value"), std::string::npos);
  EXPECT_NE(message({hzio::testing::GoldenPath("README.md")}).find("not a .idx"), std::string::npos);
}

TEST(ServerOptions, ConfigFile) {
  fs::path dir = fs::temp_directory_path() / ("hzio_cfg_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "c.json") << R"({"datasets":[{"name":"s3d","path":")" << hzio::testing::GoldenPath("f32/visus.idx")
                                << R"(","group":"combustion"}],"cache_mb":16,"max_query_mb":2})";
  ServerOptions o = Parse({"--config", (dir / "c.json").string(), "--port", "9"});
  ASSERT_EQ(o.datasets.size(), 1u);
  EXPECT_EQ(o.datasets[0].name, "s3d");
  EXPECT_EQ(o.datasets[0].group, "combustion");
  EXPECT_EQ(o.cache_bytes, int64_t{16} << 20);
  EXPECT_EQ(o.max_query_bytes, int64_t{2} << 20);
  EXPECT_EQ(o.port, 9);
  std::ofstream(dir / "bad.json") << R"({"datasets":[{"name":"x"}]})";
  EXPECT_THROW(Parse({"--config", (dir / "bad.json").string()}), Error);
  std::ofstream(dir / "bad2.json") << R"({"cache":1})";
  EXPECT_THROW(Parse({"--config", (dir / "bad2.json").string()}), Error);
  std::ofstream(dir / "bad3.json") << "{not json";
  EXPECT_THROW(Parse({"--config", (dir / "bad3.json").string()}), Error);
  fs::remove_all(dir);
}

TEST(ServerOptions, DatasetsByUrlMakeAGateway) {
  ServerOptions o = Parse({"s3://lab/run7/visus.idx", "osn=https://osn.example/bkt/a/visus.idx?endpoint_url=x",
                           "http://h:8080/mod_visus?dataset=far", "https://data.example.org/nasa/llc.idx",
                           "--cache-dir", "/tmp/gw", "--cache-size", "20g"});
  ASSERT_EQ(o.datasets.size(), 4u);
  EXPECT_EQ(o.datasets[0].name, "run7");  // the folder of a visus.idx, as for paths
  EXPECT_EQ(o.datasets[0].path, "s3://lab/run7/visus.idx");  // a URL is never made a path
  EXPECT_EQ(o.datasets[1].name, "osn");
  EXPECT_EQ(o.datasets[1].path, "https://osn.example/bkt/a/visus.idx?endpoint_url=x");
  EXPECT_EQ(o.datasets[2].name, "far");
  EXPECT_EQ(o.datasets[3].name, "llc");
  EXPECT_EQ(o.cache_dir, "/tmp/gw");
  EXPECT_EQ(o.cache_max_bytes, int64_t{20} << 30);
  EXPECT_EQ(Parse({"--no-cache"}).cache_dir, "");
  EXPECT_FALSE(Parse({}).cache_dir.has_value());

  hzio::testing::TempDir dir;
  std::ofstream(dir.File("gw.json")) << R"({"datasets":[{"name":"a","path":"s3://lab/a/visus.idx"}],)"
                                     << R"("cache_dir":"cache","cache_size":"512m"})";
  o = Parse({"--config", dir.File("gw.json")});
  ASSERT_EQ(o.datasets.size(), 1u);
  EXPECT_EQ(o.datasets[0].path, "s3://lab/a/visus.idx");
  EXPECT_EQ(o.cache_dir, dir.File("cache"));  // relative to the file, as paths are
  EXPECT_EQ(o.cache_max_bytes, int64_t{512} << 20);
  std::ofstream(dir.File("bad.json")) << R"({"cache_size":"lots"})";
  EXPECT_HZIO_ERROR(Parse({"--config", dir.File("bad.json")}), ErrorCode::kInvalidArgument, "cache_size", "not a size");
}

}  // namespace
}  // namespace hzio::server
