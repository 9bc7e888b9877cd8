// The opener registry (access/dataset_openers.h): built-in backends are registered without any
// static initialiser (this binary references nothing of remote/, yet http:// opens through it),
// unknown schemes are a clear error, and other code can register schemes of its own.
#include "hzio/access/dataset_openers.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace hzio {
namespace {

TEST(DatasetOpeners, SchemesOfUrlsAndPaths) {
  EXPECT_EQ(UrlScheme("http://h:1/mod_visus?dataset=a"), "http");
  EXPECT_EQ(UrlScheme("HTTPS://h/x"), "https");
  EXPECT_EQ(UrlScheme("s3+x.y-z://bucket/key"), "s3+x.y-z");
  EXPECT_EQ(UrlScheme("/data/a.idx"), "");
  EXPECT_EQ(UrlScheme("data/a://b.idx"), "");
  EXPECT_EQ(UrlScheme("a:b.idx"), "");
  EXPECT_EQ(UrlScheme("1http://x"), "");
}

#ifdef HZIO_HAVE_REMOTE_OPENERS
TEST(DatasetOpeners, HttpIsBuiltInEvenFromAStaticLibrary) {
  const std::vector<std::string> schemes = DatasetOpeners::Global().Schemes();
  EXPECT_NE(std::find(schemes.begin(), schemes.end(), "http"), schemes.end());
  EXPECT_NE(std::find(schemes.begin(), schemes.end(), "https"), schemes.end());
  // Nothing listens on port 1: the remote opener ran (not an unknown-scheme error).
  EXPECT_HZIO_ERROR(OpenDataset("http://127.0.0.1:1/mod_visus?dataset=x"), ErrorCode::kUnavailable, "127.0.0.1:1");
}
#endif

TEST(DatasetOpeners, UnknownSchemesAreUnsupported) {
  EXPECT_HZIO_ERROR(OpenDataset("ftp://example/x.idx"), ErrorCode::kUnsupported, "ftp://example/x.idx",
                    "reads no ftp:// URLs", "local .idx files");
}

TEST(DatasetOpeners, RegisteredSchemesOpenThroughTheirOpener) {
  std::string seen;
  RegisterDatasetOpener("hziotest", [&](const std::string& url, const OpenOptions&) -> std::shared_ptr<Dataset> {
    seen = url;
    return OpenDataset(testing::GoldenPath("tiny/hz.idx"));
  });
  auto ds = OpenDataset("hziotest://anything?x=1");
  EXPECT_EQ(seen, "hziotest://anything?x=1");
  EXPECT_EQ(ds->header().maxh(), 4);
  // file:// is a local path.
  EXPECT_EQ(OpenDataset("file://" + testing::GoldenPath("tiny/hz.idx"))->header().maxh(), 4);
}

}  // namespace
}  // namespace hzio
