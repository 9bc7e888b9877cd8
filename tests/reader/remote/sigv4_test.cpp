// AWS Signature Version 4 against AWS's published vectors: the SigV4 test suite (service
// "service", 2015-08-30) and the Amazon S3 examples of signing a GET with a Range header, plus the
// key-derivation example of the SigV4 documentation.
#include "hzio/remote/sigv4.h"

#include <gtest/gtest.h>

#include "hzio/remote/crypto.h"

namespace hzio::internal_remote {
namespace {

const AwsCredentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const SigV4Scope kSuiteScope{"20150830T123600Z", "us-east-1", "service"};

SigV4Request SuiteRequest(const std::string& method, HeaderList query) {
  SigV4Request r;
  r.method = method;
  r.host = "example.amazonaws.com";
  r.canonical_uri = "/";
  r.query = std::move(query);
  r.headers = {{"X-Amz-Date", "20150830T123600Z"}};
  r.payload_hash = PayloadHash("");
  return r;
}

std::string SignatureOf(const std::string& authorization) {
  return authorization.substr(authorization.find("Signature=") + 10);
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(HexLower(Sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HexLower(Sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // RFC 4231 test case 2.
  EXPECT_EQ(HexLower(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(SigV4, GetVanillaCanonicalRequest) {
  const SigV4Request r = SuiteRequest("GET", {});
  EXPECT_EQ(CanonicalRequest(r),
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(StringToSign(CanonicalRequest(r), kSuiteScope).substr(0, 74),
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n");
}

TEST(SigV4, TestSuiteSignatures) {
  struct Case {
    const char* name;
    SigV4Request request;
    const char* signature;
  };
  const Case cases[] = {
      {"get-vanilla", SuiteRequest("GET", {}), "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
      {"get-vanilla-query-key", SuiteRequest("GET", {{"Param1", "value1"}}),
       "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
      {"post-vanilla", SuiteRequest("POST", {}), "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"post-vanilla-query", SuiteRequest("POST", {{"Param1", "value1"}}),
       "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"},
  };
  for (const Case& c : cases) {
    const std::string authorization = AuthorizationHeader(c.request, kSuiteCredentials, kSuiteScope);
    EXPECT_EQ(SignatureOf(authorization), c.signature) << c.name;
    EXPECT_EQ(authorization.substr(0, authorization.find(", Signature=")),
              "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
              "SignedHeaders=host;x-amz-date")
        << c.name;
  }
}

TEST(SigV4, SigningKeyDerivation) {
  // The SigV4 documentation's example: IAM in us-east-1 on 2012-02-15.
  const SigV4Scope scope{"20120215T000000Z", "us-east-1", "iam"};
  EXPECT_EQ(HexLower(SigningKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", scope)),
            "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
}

TEST(SigV4, S3GetObjectWithRange) {
  // Amazon S3's example: GET /test.txt from examplebucket with Range: bytes=0-9 on 2013-05-24.
  SigV4Request r;
  r.method = "GET";
  r.host = "examplebucket.s3.amazonaws.com";
  r.canonical_uri = "/test.txt";
  r.headers = {{"Range", "bytes=0-9"}};
  const AwsCredentials credentials{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
  const std::time_t when = 1369353600;  // 2013-05-24T00:00:00Z
  const HeaderList added = SignS3Request(r, credentials, "us-east-1", when);
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(added[0], (std::pair<std::string, std::string>{"x-amz-date", "20130524T000000Z"}));
  EXPECT_EQ(added[1].second, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(added[2].first, "Authorization");
  EXPECT_EQ(added[2].second,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, SessionTokenIsSignedAndAnonymousIsUnsigned) {
  SigV4Request r;
  r.method = "GET";
  r.host = "127.0.0.1:9000";
  r.canonical_uri = "/bucket/a%20b/visus.idx";
  const HeaderList with_token = SignS3Request(r, {"AK", "SK", "TOKEN"}, "", 1369353600);
  ASSERT_EQ(with_token.size(), 4u);
  EXPECT_EQ(with_token[2], (std::pair<std::string, std::string>{"x-amz-security-token", "TOKEN"}));
  EXPECT_NE(with_token[3].second.find("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token"),
            std::string::npos);
  EXPECT_NE(with_token[3].second.find("/20130524/us-east-1/s3/"), std::string::npos);  // default region
  EXPECT_TRUE(SignS3Request(r, {}, "us-east-1", 1369353600).empty());
}

TEST(SigV4, CanonicalQueryIsSortedAndEncoded) {
  SigV4Request r = SuiteRequest("GET", {{"prefix", "a b/c"}, {"list-type", "2"}, {"delimiter", "/"}});
  const std::string creq = CanonicalRequest(r);
  EXPECT_NE(creq.find("\ndelimiter=%2F&list-type=2&prefix=a%20b%2Fc\n"), std::string::npos) << creq;
  EXPECT_EQ(AwsUriEncode("run 7/ä~x", true), "run%207/%C3%A4~x");
}

TEST(SigV4, HeaderValuesAreTrimmed) {
  SigV4Request r = SuiteRequest("GET", {});
  r.headers.emplace_back("My-Header1", "  value1   with   spaces ");
  EXPECT_NE(CanonicalRequest(r).find("\nmy-header1:value1 with spaces\n"), std::string::npos);
}

}  // namespace
}  // namespace hzio::internal_remote
