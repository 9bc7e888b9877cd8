// Users, secrets and access (server/src/auth/): password hashes, the authenticator's schemes and
// cache, access lists, the token buckets, and the config keys that declare them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "auth/authenticator.h"
#include "auth/password_hash.h"
#include "auth/rate_limiter.h"
#include "config/server_options.h"
#include "hzio/util/error.h"
#include "test_support.h"

namespace hzio::server {
namespace {

namespace fs = std::filesystem;

template <class F>
void ExpectError(F f, ErrorCode code, const std::string& substring) {
  try {
    f();
    FAIL() << "no error; expected one containing '" << substring << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

TEST(PasswordHash, SaltedVerifiesAndRefusesMalformedHashes) {
  const std::string a = HashSecret("correct horse", kMinPbkdf2Iterations);
  const std::string b = HashSecret("correct horse", kMinPbkdf2Iterations);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("$pbkdf2-sha256$", 0), 0u);
  EXPECT_TRUE(VerifySecret("correct horse", a));
  EXPECT_TRUE(VerifySecret("correct horse", b));
  EXPECT_FALSE(VerifySecret("correct horsf", a));
  EXPECT_FALSE(VerifySecret("", a));
  ExpectError([] { HashSecret(""); }, ErrorCode::kInvalidArgument, "empty");
  ExpectError([] { HashSecret("x", 10); }, ErrorCode::kInvalidArgument, "iterations");
  ExpectError([] { CheckSecretHash("plaintext-password"); }, ErrorCode::kInvalidArgument, "hzio passwd");
  ExpectError([] { CheckSecretHash("$pbkdf2-sha256$10$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA=="); },
              ErrorCode::kInvalidArgument, "iterations must be");
  ExpectError([] { CheckSecretHash("$pbkdf2-sha256$200000$!!$aGFzaA=="); }, ErrorCode::kInvalidArgument, "salt");
}

TEST(PasswordHash, Base64RoundTripsAndRejectsGarbage) {
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x10", 3)}) {
    std::string back;
    ASSERT_TRUE(Base64Decode(Base64Encode(s), &back));
    EXPECT_EQ(back, s);
  }
  std::string out;
  EXPECT_TRUE(Base64Decode("YW5hOnB3", &out));
  EXPECT_EQ(out, "ana:pw");
  for (const char* bad : {"YW5", "YW5h!nB3", "Y=5hOnB3", "YW==OnB3"}) EXPECT_FALSE(Base64Decode(bad, &out)) << bad;
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  AuthenticatorTest()
      : auth_({UserEntry{"ana", {HashSecret("ana-pw", kMinPbkdf2Iterations)}, std::nullopt},
               UserEntry{"bob", {HashSecret("bob-pw", kMinPbkdf2Iterations), HashSecret("bob-token", kMinPbkdf2Iterations)},
                         std::nullopt}}) {}
  static std::string Basic(const std::string& up) { return "Basic " + Base64Encode(up); }
  Authenticator auth_;
};

TEST_F(AuthenticatorTest, BasicAndBearer) {
  EXPECT_TRUE(auth_.enabled());
  Caller c = auth_.Authenticate(Basic("ana:ana-pw"));
  EXPECT_EQ(c.user, "ana");
  EXPECT_FALSE(c.bad_credentials);
  EXPECT_EQ(auth_.Authenticate("Bearer bob-token").user, "bob");
  EXPECT_EQ(auth_.Authenticate("bearer   bob-token ").user, "bob");  // scheme is case-insensitive
  EXPECT_EQ(auth_.Authenticate(Basic("bob:bob-token")).user, "bob");  // any of bob's secrets
  EXPECT_EQ(auth_.Authenticate("").user, "");
  EXPECT_FALSE(auth_.Authenticate("").bad_credentials);
  for (const std::string& bad : {Basic("ana:bob-pw"), Basic("bob:ana-pw"), Basic("nobody:ana-pw"), Basic("ana"),
                                 Basic(":ana-pw"), std::string("Bearer ana"), std::string("Bearer "),
                                 std::string("Basic %%%"), std::string("Digest x"), std::string("ana-pw")}) {
    Caller bad_caller = auth_.Authenticate(bad);
    EXPECT_TRUE(bad_caller.bad_credentials) << bad;
    EXPECT_EQ(bad_caller.user, "") << bad;
  }
  // The cache answers repeats the same way (good and bad).
  EXPECT_EQ(auth_.Authenticate(Basic("ana:ana-pw")).user, "ana");
  EXPECT_TRUE(auth_.Authenticate(Basic("ana:bob-pw")).bad_credentials);
}

TEST_F(AuthenticatorTest, CachedVerificationsCostNoKdf) {
  const std::string header = "Bearer bob-token";
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(auth_.Authenticate(header).user, "bob");
  const auto first = std::chrono::steady_clock::now() - t0;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(auth_.Authenticate(header).user, "bob");
  const auto hundred = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(hundred, first) << "100 cached checks should cost less than one KDF";
}

TEST_F(AuthenticatorTest, AccessLists) {
  DatasetEntry open{"o", "/x.idx", "", true, {}};
  DatasetEntry anas{"a", "/x.idx", "", false, {"ana"}};
  DatasetEntry anyone{"s", "/x.idx", "", false, {"*"}};
  DatasetEntry nobody{"n", "/x.idx", "", false, {}};
  Caller anonymous, ana{"ana", false}, bob{"bob", false};
  EXPECT_TRUE(auth_.CanRead(open, anonymous));
  EXPECT_FALSE(auth_.CanRead(anas, anonymous));
  EXPECT_TRUE(auth_.CanRead(anas, ana));
  EXPECT_FALSE(auth_.CanRead(anas, bob));
  EXPECT_TRUE(auth_.CanRead(anyone, bob));
  EXPECT_FALSE(auth_.CanRead(anyone, anonymous));
  EXPECT_FALSE(auth_.CanRead(nobody, ana));
  Authenticator none({});
  EXPECT_FALSE(none.enabled());
  EXPECT_TRUE(none.CanRead(nobody, anonymous));  // no users: as before access lists
  EXPECT_TRUE(none.Authenticate("Bearer x").bad_credentials);
}

TEST(RateLimiter, TokenBucketRefillsAndSaysWhenToRetry) {
  RateLimiter limiter;
  const RateLimit limit{2.0, 3.0};  // 2/s, burst 3
  const auto t = RateLimiter::Clock::time_point{} + std::chrono::hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Take("a", limit, t), 0);
  EXPECT_EQ(limiter.Take("a", limit, t), 1);                   // empty: retry in 1 s
  EXPECT_EQ(limiter.Take("b", limit, t), 0);                   // another client has its own bucket
  EXPECT_EQ(limiter.Take("a", limit, t + std::chrono::milliseconds(500)), 0);  // one token back
  EXPECT_EQ(limiter.Take("a", limit, t + std::chrono::milliseconds(500)), 1);
  EXPECT_EQ(limiter.Take("a", RateLimit{0.1, 1}, t + std::chrono::milliseconds(500)), 10);
  EXPECT_EQ(limiter.Take("a", RateLimit{}, t), 0);  // unlimited
  EXPECT_EQ(limiter.Buckets(), 2u);
}

class ConfigTest : public ::testing::Test {
 protected:
  ConfigTest() : dir_(fs::temp_directory_path() / ("hzio_cfg_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~ConfigTest() override { fs::remove_all(dir_); }
  ServerOptions Load(const std::string& json) {
    const std::string path = (dir_ / "c.json").string();
    std::ofstream(path) << json;
    std::string arg = "--config=" + path;
    char serve[] = "serve";
    char* argv[] = {serve, arg.data()};
    bool help = false;
    return ParseServeArgs(2, argv, &help);
  }
  fs::path dir_;
};

TEST_F(ConfigTest, UsersReadersPublicRateLimitsTls) {
  const std::string h = HashSecret("pw", kMinPbkdf2Iterations);
  ServerOptions o = Load(R"({"datasets":[{"name":"a","path":")" + hzio::testing::GoldenPath("tiny/hz.idx") +
                         R"(","readers":["ana"]},{"name":"b","path":")" + hzio::testing::GoldenPath("tiny/rm.idx") +
                         R"(","public":true}],"users":[{"name":"ana","secrets":[")" + h +
                         R"("],"rate_limit":{"requests_per_second":5,"burst":10}}],
                            "rate_limit":{"requests_per_second":2},"cors_origins":["https://v.example"],
                            "tls_cert":"c.pem","tls_key":"k.pem","reply_budget_mb":64})");
  ASSERT_EQ(o.datasets.size(), 2u);
  EXPECT_EQ(o.datasets[0].readers, std::vector<std::string>{"ana"});
  EXPECT_FALSE(o.datasets[0].is_public);
  EXPECT_TRUE(o.datasets[1].is_public);
  ASSERT_EQ(o.users.size(), 1u);
  EXPECT_EQ(o.users[0].rate_limit->burst, 10);
  EXPECT_EQ(o.rate_limit.requests_per_second, 2);
  EXPECT_EQ(o.rate_limit.burst, 2);  // defaults to one second's worth
  EXPECT_EQ(*o.cors_origins, std::vector<std::string>{"https://v.example"});
  EXPECT_EQ(o.tls_cert, (dir_ / "c.pem").string());
  EXPECT_EQ(o.reply_budget_bytes, int64_t{64} << 20);
}

TEST_F(ConfigTest, MistakesNameTheKeyAndNeverEchoSecrets) {
  const std::string ds = R"({"name":"a","path":")" + hzio::testing::GoldenPath("tiny/hz.idx") + "\"";
  ExpectError([&] { Load(R"({"users":[{"name":"ana","secrets":["hunter2"]}]})"); }, ErrorCode::kInvalidArgument,
              "user 'ana'");
  try {
    Load(R"({"users":[{"name":"ana","secrets":["hunter2"]}]})");
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos);
  }
  ExpectError([&] { Load(R"({"datasets":[)" + ds + R"(,"readers":["ana"]}]})"); }, ErrorCode::kInvalidArgument,
              "has readers but the config has no \"users\"");
  const std::string h = HashSecret("pw", kMinPbkdf2Iterations);
  ExpectError([&] { Load(R"({"datasets":[)" + ds + R"(,"readers":["zed"]}],"users":[{"name":"ana","secrets":[")" +
                         h + R"("]}]})"); },
              ErrorCode::kInvalidArgument, "reader 'zed'");
  ExpectError([&] { Load(R"({"rate_limit":{"rps":3}})"); }, ErrorCode::kInvalidArgument, "unknown key \"rps\"");
  ExpectError([&] { Load(R"({"tls_cert":"c.pem"})"); }, ErrorCode::kInvalidArgument, "together");
  ExpectError([&] { Load(R"({"users":[{"name":"a:b","secrets":[")" + h + R"("]}]})"); },
              ErrorCode::kInvalidArgument, "without ':'");
}

TEST(ExposureWarnings, NonLoopbackWithoutTlsOrAccessLists) {
  ServerOptions o;
  EXPECT_TRUE(ExposureWarnings(o).empty());  // 127.0.0.1
  o.host = "0.0.0.0";
  auto w = ExposureWarnings(o);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("without TLS"), std::string::npos);
  EXPECT_NE(w[1].find("without access lists"), std::string::npos);
  o.tls_cert = "c";
  o.tls_key = "k";
  o.users.push_back(UserEntry{"ana", {"h"}, std::nullopt});
  EXPECT_TRUE(ExposureWarnings(o).empty());
}

}  // namespace
}  // namespace hzio::server
