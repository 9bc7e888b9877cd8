// Where S3 credentials, region and endpoint come from (aws_config.h): URL parameters, the
// environment, the AWS files, in the documented order.
#include "hzio/remote/aws_config.h"

#include <gtest/gtest.h>

#include <map>

#include "support/test_support.h"

namespace hzio::internal_remote {
namespace {

struct FakeEnv {
  std::map<std::string, std::string> vars;
  EnvLookup lookup() const {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  }
};

class AwsConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(home_.path() / ".aws");
    env_.vars["HOME"] = home_.path().string();
  }
  void WriteFile(const std::string& name, const std::string& text) {
    testing::WriteBytes((home_.path() / ".aws" / name).string(), std::vector<uint8_t>(text.begin(), text.end()));
  }
  testing::TempDir home_;
  FakeEnv env_;
};

TEST_F(AwsConfig, AnonymousWithNothingConfigured) {
  const S3Settings s = ResolveS3Settings({}, env_.lookup());
  EXPECT_TRUE(s.credentials.anonymous());
  EXPECT_EQ(s.region, "us-east-1");
  EXPECT_EQ(s.endpoint_url, "");
  EXPECT_EQ(s.credentials_from, "");
}

TEST_F(AwsConfig, UrlParametersWinOverEverything) {
  env_.vars = {{"HOME", home_.path().string()},
               {"AWS_ACCESS_KEY_ID", "ENVKEY"},
               {"AWS_SECRET_ACCESS_KEY", "ENVSECRET"},
               {"AWS_REGION", "eu-west-1"},
               {"AWS_ENDPOINT_URL", "http://env:9000"}};
  const S3Settings s = ResolveS3Settings({{"access_key", "URLKEY"},
                                          {"secret_key", "URLSECRET"},
                                          {"region", "us-west-2"},
                                          {"endpoint_url", "https://osn.example/"}},
                                         env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "URLKEY");
  EXPECT_EQ(s.credentials.secret_access_key, "URLSECRET");
  EXPECT_EQ(s.credentials_from, "url");
  EXPECT_EQ(s.region, "us-west-2");
  EXPECT_EQ(s.endpoint_url, "https://osn.example");  // trailing '/' dropped
  // OpenVisus also spells the secret secret_access_key.
  EXPECT_EQ(ResolveS3Settings({{"access_key", "K"}, {"secret_access_key", "S"}}, env_.lookup())
                .credentials.secret_access_key,
            "S");
}

TEST_F(AwsConfig, AccessKeyWithoutSecretIsAnError) {
  EXPECT_HZIO_ERROR(ResolveS3Settings({{"access_key", "K"}}, env_.lookup()), ErrorCode::kInvalidArgument,
                    "access_key but no secret_key");
}

TEST_F(AwsConfig, EnvironmentThenDefaultProfile) {
  WriteFile("credentials", "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  WriteFile("config", "[default]\nregion = ap-south-1\n");
  S3Settings s = ResolveS3Settings({}, env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "FILEKEY");
  EXPECT_EQ(s.credentials_from, "profile default");
  EXPECT_EQ(s.region, "ap-south-1");
  env_.vars["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_.vars["AWS_SECRET_ACCESS_KEY"] = "ENVSECRET";
  env_.vars["AWS_SESSION_TOKEN"] = "ENVTOKEN";
  env_.vars["AWS_DEFAULT_REGION"] = "ca-central-1";
  s = ResolveS3Settings({}, env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "ENVKEY");
  EXPECT_EQ(s.credentials.session_token, "ENVTOKEN");
  EXPECT_EQ(s.credentials_from, "environment");
  EXPECT_EQ(s.region, "ca-central-1");
  env_.vars["AWS_REGION"] = "sa-east-1";  // AWS_REGION before AWS_DEFAULT_REGION
  EXPECT_EQ(ResolveS3Settings({}, env_.lookup()).region, "sa-east-1");
}

TEST_F(AwsConfig, NamedProfileWinsOverEnvironmentKeys) {
  WriteFile("credentials",
            "# a comment\n[osn]\naws_access_key_id=OSNKEY\naws_secret_access_key = OSNSECRET\n"
            "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n");
  WriteFile("config",
            "[profile osn]\nregion = us-east-2\ns3 =\n    endpoint_url = https://uma1.osn.example\n"
            "    addressing_style = path\n");
  env_.vars["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  env_.vars["AWS_SECRET_ACCESS_KEY"] = "ENVSECRET";
  env_.vars["AWS_PROFILE"] = "osn";
  S3Settings s = ResolveS3Settings({}, env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "OSNKEY");
  EXPECT_EQ(s.credentials_from, "profile osn");
  EXPECT_EQ(s.region, "us-east-2");
  EXPECT_EQ(s.endpoint_url, "https://uma1.osn.example");  // the nested form OpenVisus reads
  // profile= in the URL beats AWS_PROFILE.
  s = ResolveS3Settings({{"profile", "default"}}, env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "D");
  // AWS_ENDPOINT_URL beats the profile's endpoint, AWS_ENDPOINT_URL_S3 beats both.
  env_.vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9000";
  EXPECT_EQ(ResolveS3Settings({}, env_.lookup()).endpoint_url, "http://127.0.0.1:9000");
  env_.vars["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:9001";
  EXPECT_EQ(ResolveS3Settings({}, env_.lookup()).endpoint_url, "http://127.0.0.1:9001");
}

TEST_F(AwsConfig, FilesNamedByTheEnvironment) {
  testing::TempDir other;
  const std::string credentials = other.File("creds"), config = other.File("conf");
  const std::string c = "[p]\naws_access_key_id = K\naws_secret_access_key = S\n";
  const std::string k = "[profile p]\nendpoint_url = http://host:1\n";
  testing::WriteBytes(credentials, std::vector<uint8_t>(c.begin(), c.end()));
  testing::WriteBytes(config, std::vector<uint8_t>(k.begin(), k.end()));
  env_.vars["AWS_SHARED_CREDENTIALS_FILE"] = credentials;
  env_.vars["AWS_CONFIG_FILE"] = config;
  const S3Settings s = ResolveS3Settings({{"profile", "p"}}, env_.lookup());
  EXPECT_EQ(s.credentials.access_key_id, "K");
  EXPECT_EQ(s.endpoint_url, "http://host:1");
}

TEST_F(AwsConfig, UnknownExplicitProfileIsAnError) {
  env_.vars["AWS_PROFILE"] = "nosuch";
  EXPECT_HZIO_ERROR(ResolveS3Settings({}, env_.lookup()), ErrorCode::kInvalidArgument, "AWS profile 'nosuch'",
                    ".aws/credentials");
}

TEST_F(AwsConfig, RegionFromTheHostName) {
  EXPECT_EQ(ResolveS3Settings({}, env_.lookup(), "eu-central-1").region, "eu-central-1");
}

TEST(AwsIni, SectionsKeysAndNestedSettings) {
  const auto ini = ParseAwsIni("[a]\r\nk = v\r\n; c\n[profile b]\ns3 =\n  endpoint_url = x\nregion=r\n");
  EXPECT_EQ(ini.at("a").at("k"), "v");
  EXPECT_EQ(ini.at("profile b").at("s3.endpoint_url"), "x");
  EXPECT_EQ(ini.at("profile b").at("region"), "r");
}

}  // namespace
}  // namespace hzio::internal_remote
