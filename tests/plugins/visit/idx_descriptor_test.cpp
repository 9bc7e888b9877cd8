// .idxurl descriptors of the VisIt plugin (plugins/visit/IDX/IDXDescriptor.h): which dataset a
// file handed to VisIt names.
#include "IDXDescriptor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hzio/util/error.h"

namespace {

namespace fs = std::filesystem;

class IdxDescriptor : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hzio_idx_descriptor_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(IdxDescriptor, PlainIdxPathsAreOpenedAsGiven) {
  EXPECT_FALSE(IsIdxDescriptor("/data/run/visus.idx"));
  EXPECT_EQ(ResolveIdxSource("/data/run/visus.idx"), "/data/run/visus.idx");
}

TEST_F(IdxDescriptor, TheFirstEntryIsTheUrlCommentsAndBlanksSkipped) {
  const std::string f = Write("s3d.idxurl", "# lab server\n\n   http://127.0.0.1:8080/mod_visus?dataset=s3d  \nhttp://other\n");
  EXPECT_TRUE(IsIdxDescriptor(f));
  EXPECT_EQ(ResolveIdxSource(f), "http://127.0.0.1:8080/mod_visus?dataset=s3d");
}

TEST_F(IdxDescriptor, SuffixIsCaseInsensitiveAndHttpsWorks) {
  const std::string f = Write("S3D.IDXURL", "https://example.org/mod_visus?dataset=a\n");
  EXPECT_TRUE(IsIdxDescriptor(f));
  EXPECT_EQ(ResolveIdxSource(f), "https://example.org/mod_visus?dataset=a");
}

TEST_F(IdxDescriptor, ObjectStoreUrlsAreOpenedAsGiven) {
  const std::string s3 = Write("run7.idxurl", "# the run on the lab's bucket\ns3://lab-data/run 7/visus.idx\n");
  EXPECT_EQ(ResolveIdxSource(s3), "s3://lab-data/run 7/visus.idx");
  const std::string ov = Write("osn.idxurl",
                               "https://uma1.osn.example/bucket/ds/visus.idx?endpoint_url=https://uma1.osn.example"
                               "&profile=osn\n");
  EXPECT_EQ(ResolveIdxSource(ov), "https://uma1.osn.example/bucket/ds/visus.idx?endpoint_url=https://uma1.osn.example"
                                  "&profile=osn");
  const std::string web = Write("web.idxurl", "https://data.example.org/nasa/visus.idx\n");
  EXPECT_EQ(ResolveIdxSource(web), "https://data.example.org/nasa/visus.idx");
}

TEST_F(IdxDescriptor, RelativePathsAreRelativeToTheDescriptor) {
  const std::string f = Write("local.idxurl", "data/visus.idx\n");
  EXPECT_EQ(fs::path(ResolveIdxSource(f)), dir_ / "data" / "visus.idx");
  const std::string g = Write("absolute.idxurl", "/srv/x/visus.idx\n");
  EXPECT_EQ(ResolveIdxSource(g), "/srv/x/visus.idx");
}

TEST_F(IdxDescriptor, EmptyOrMissingDescriptorsAreErrorsNamingTheFile) {
  const std::string f = Write("empty.idxurl", "# nothing here\n\n");
  try {
    ResolveIdxSource(f);
    FAIL() << "expected an error";
  } catch (const hzio::Error& e) {
    EXPECT_EQ(e.code(), hzio::ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("empty.idxurl"), std::string::npos) << e.what();
  }
  try {
    ResolveIdxSource((dir_ / "missing.idxurl").string());
    FAIL() << "expected an error";
  } catch (const hzio::Error& e) {
    EXPECT_EQ(e.code(), hzio::ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("missing.idxurl"), std::string::npos) << e.what();
  }
}

}  // namespace
