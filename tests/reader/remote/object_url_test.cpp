// Dataset URLs of web servers and S3 stores (object_url.h), and the object URLs built from them
// (object_store.h).
#include "hzio/remote/object_url.h"

#include <gtest/gtest.h>

#include "hzio/remote/object_store.h"
#include "support/test_support.h"

namespace hzio::internal_remote {
namespace {

EnvLookup NoEnvironment() {
  return [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
}

std::string UrlOf(const std::string& dataset, const std::string& relative) {
  ObjectStore store(ParseObjectLocation(dataset), NoEnvironment(), std::make_shared<HttpClient>());
  return store.Url(store.Key(relative));
}

TEST(ObjectUrl, ModVisusUrlsAreTellApart) {
  EXPECT_TRUE(IsModVisusUrl("http://h:8080/mod_visus?dataset=x"));
  EXPECT_TRUE(IsModVisusUrl("https://h/server?dataset=x&cached=1"));
  EXPECT_FALSE(IsModVisusUrl("https://h/data/visus.idx"));
  EXPECT_FALSE(IsModVisusUrl("http://h/bucket/visus.idx?endpoint_url=http://h&access_key=a&secret_key=b"));
}

TEST(ObjectUrl, PlainWebServer) {
  const ObjectLocation l = ParseObjectLocation("https://data.example.org:443/a/b%20c/visus.idx");
  EXPECT_FALSE(l.s3);
  EXPECT_EQ(l.endpoint, "https://data.example.org");
  EXPECT_EQ(l.folder, "a/b c/");
  EXPECT_EQ(l.idx_name, "visus.idx");
  EXPECT_EQ(UrlOf("https://data.example.org/a/b%20c/visus.idx", "./visus/0000.bin"),
            "https://data.example.org/a/b%20c/visus/0000.bin");
  EXPECT_EQ(UrlOf("http://h:8080/a/visus.idx", "../x/0001.bin"), "http://h:8080/x/0001.bin");
}

TEST(ObjectUrl, S3SchemeUsesTheEnvironmentsEndpointPathStyle) {
  const ObjectLocation l = ParseObjectLocation("s3://bucket/run 7/visus.idx");
  EXPECT_TRUE(l.s3);
  EXPECT_EQ(l.bucket, "bucket");
  EXPECT_EQ(l.folder, "run 7/");
  auto env = [](const std::string& n) -> std::optional<std::string> {
    if (n == "AWS_ENDPOINT_URL") return "http://127.0.0.1:9000";
    return std::nullopt;
  };
  ObjectStore store(l, env, std::make_shared<HttpClient>());
  EXPECT_EQ(store.Url(store.IdxKey()), "http://127.0.0.1:9000/bucket/run%207/visus.idx");
}

TEST(ObjectUrl, S3SchemeOnAmazonIsVirtualHosted) {
  EXPECT_EQ(UrlOf("s3://my-bucket/k/visus.idx", "visus/0/data/0000/0000/0000/0001.bin"),
            "https://my-bucket.s3.us-east-1.amazonaws.com/k/visus/0/data/0000/0000/0000/0001.bin");
  // Dotted bucket names do not fit a wildcard certificate: path-style.
  EXPECT_EQ(UrlOf("s3://my.bucket/visus.idx?region=eu-west-1", "x.bin"),
            "https://s3.eu-west-1.amazonaws.com/my.bucket/x.bin");
}

TEST(ObjectUrl, OpenVisusFormIsPathStyleAtItsOwnHost) {
  const std::string url =
      "http://127.0.0.1:9000/bucket/ds/visus.idx?access_key=AK&secret_key=SK&region=us-east-1";
  const ObjectLocation l = ParseObjectLocation(url);
  EXPECT_TRUE(l.s3);
  EXPECT_EQ(l.bucket, "bucket");
  EXPECT_EQ(l.folder, "ds/");
  EXPECT_EQ(l.endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(l.display, "http://127.0.0.1:9000/bucket/ds/visus.idx?region=us-east-1");  // no secrets
  EXPECT_EQ(UrlOf(url, "visus/0/v/0000/0000/0000/0000.bin"),
            "http://127.0.0.1:9000/bucket/ds/visus/0/v/0000/0000/0000/0000.bin");
  // endpoint_url names another host than the URL's.
  EXPECT_EQ(UrlOf("https://osn.example/bucket/visus.idx?endpoint_url=https://uma1.osn.example", "a.bin"),
            "https://uma1.osn.example/bucket/a.bin");
}

TEST(ObjectUrl, AmazonHostNames) {
  ObjectLocation l = ParseObjectLocation("https://bkt.s3.us-west-2.amazonaws.com/a/visus.idx");
  EXPECT_TRUE(l.s3);
  EXPECT_TRUE(l.virtual_hosted);
  EXPECT_EQ(l.bucket, "bkt");
  EXPECT_EQ(l.region_hint, "us-west-2");
  EXPECT_EQ(UrlOf("https://bkt.s3.us-west-2.amazonaws.com/a/visus.idx", "b.bin"),
            "https://bkt.s3.us-west-2.amazonaws.com/a/b.bin");
  l = ParseObjectLocation("https://s3.us-west-1.amazonaws.com/bkt/a/visus.idx");
  EXPECT_TRUE(l.s3);
  EXPECT_EQ(l.bucket, "bkt");
  EXPECT_EQ(l.folder, "a/");
  EXPECT_EQ(l.region_hint, "us-west-1");
}

TEST(ObjectUrl, RedactsCredentials) {
  EXPECT_EQ(RedactUrl("http://h/b/visus.idx?access_key=A&secret_key=S&session_token=T&region=r"),
            "http://h/b/visus.idx?region=r");
  EXPECT_EQ(RedactUrl("http://h/b/visus.idx?secret_access_key=S"), "http://h/b/visus.idx");
}

TEST(ObjectUrl, BadUrls) {
  EXPECT_HZIO_ERROR(ParseObjectLocation("s3:///visus.idx"), ErrorCode::kInvalidArgument, "names no bucket");
  EXPECT_HZIO_ERROR(ParseObjectLocation("s3://bucket"), ErrorCode::kInvalidArgument, "names a folder");
  EXPECT_HZIO_ERROR(ParseObjectLocation("https://h/data/"), ErrorCode::kInvalidArgument, "names a folder");
  EXPECT_HZIO_ERROR(ParseObjectLocation("ftp://h/visus.idx"), ErrorCode::kInvalidArgument, "s3://, http://");
  EXPECT_HZIO_ERROR(ResolveObjectKey("a/", "/etc/passwd", "x"), ErrorCode::kInvalidArgument, "absolute path");
  EXPECT_HZIO_ERROR(ResolveObjectKey("a/", "../../x", "x"), ErrorCode::kInvalidArgument, "climbs above");
  EXPECT_EQ(ResolveObjectKey("a/b/", "./c/../d.bin", "x"), "a/b/d.bin");
}

}  // namespace
}  // namespace hzio::internal_remote
