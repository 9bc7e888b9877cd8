// Static files of web/ and the traversal defences of handlers/static_files.
#include "handlers/static_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace hzio::server {
namespace {

namespace fs = std::filesystem;
using testing::Get;

class StaticFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("hzio_static_" + std::to_string(::getpid()));
    fs::remove_all(base_);
    fs::create_directories(base_ / "web/js");
    std::ofstream(base_ / "web/index.html") << "<html>viewer</html>";
    std::ofstream(base_ / "web/js/app.js") << "export const x = 1;";
    std::ofstream(base_ / "secret.txt") << "do not serve";
    fs::create_symlink(base_ / "secret.txt", base_ / "web/link.txt");
    ctx_ = std::make_unique<ServerContext>(DatasetRegistry{}, ServerOptions{});
    ctx_->web_root = (base_ / "web").string();
  }
  void TearDown() override { fs::remove_all(base_); }
  fs::path base_;
  std::unique_ptr<ServerContext> ctx_;
};

TEST_F(StaticFiles, ServesIndexAndFilesWithTypesAndEtags) {
  Reply index = Get(*ctx_, "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.body, "<html>viewer</html>");
  EXPECT_EQ(index.Get("Content-Type"), "text/html; charset=utf-8");
  Reply js = Get(*ctx_, "/js/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.Get("Content-Type"), "text/javascript; charset=utf-8");
  Request again;
  again.target = "/js/app.js";
  again.headers.emplace_back("If-None-Match", js.Get("ETag"));
  EXPECT_EQ(HandleRequest(*ctx_, again).status, 304);
  EXPECT_EQ(Get(*ctx_, "/missing.js").status, 404);
}

TEST_F(StaticFiles, RefusesTraversal) {
  for (const std::string target : {"/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt",
                                   "/js/%2E%2E/%2E%2E/secret.txt", "/..%2fsecret.txt", "/%2e%2e%5csecret.txt",
                                   "/link.txt", "/js/..", "/%00index.html"}) {
    Reply r = Get(*ctx_, target);
    EXPECT_TRUE(r.status == 400 || r.status == 404) << target << " -> " << r.status;
    EXPECT_EQ(r.body.find("do not serve"), std::string::npos) << target;
  }
}

TEST(StaticFilesPlaceholder, WithoutWebRootServesAPlaceholder) {
  ServerContext ctx(DatasetRegistry{}, ServerOptions{});
  Reply r = Get(ctx, "/");
  EXPECT_EQ(r.status, 200);
  EXPECT_NE(r.body.find("hzio"), std::string::npos);
  EXPECT_EQ(Get(ctx, "/app.js").status, 404);
}

}  // namespace
}  // namespace hzio::server
