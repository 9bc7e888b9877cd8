// Routes, access replies, metrics text, operations endpoints and streamed box bodies of the
// server's pure core (no sockets).
#include <gtest/gtest.h>

#include <zlib.h>

#include "auth/password_hash.h"
#include "engine/box_reader.h"
#include "handlers/box_stream.h"
#include "handlers/operations.h"
#include "handlers/router.h"
#include "test_support.h"

namespace hzio::server {
namespace {

using hzio::testing::GoldenPath;

std::unique_ptr<ServerContext> SecuredContext() {
  ServerOptions o;
  o.users = {UserEntry{"ana", {HashSecret("pw", kMinPbkdf2Iterations)}, std::nullopt}};
  o.datasets = {{"rgb", GoldenPath("rgb_hz_raw/visus.idx"), "", true, {}},
                {"f32", GoldenPath("f32/visus.idx"), "", false, {"ana"}},
                {"lz", GoldenPath("lz/visus.idx"), "", false, {}}};
  OpenOptions open;
  open.threads = 1;
  return std::make_unique<ServerContext>(DatasetRegistry::Open(o.datasets, open), o);
}

Reply As(ServerContext& c, const std::string& target, const std::string& auth = "") {
  Request r;
  r.target = target;
  r.remote_address = "127.0.0.1";
  if (!auth.empty()) r.headers.emplace_back("Authorization", auth);
  return HandleRequest(c, r);
}

TEST(Router, AnonymousGets401AuthenticatedGets404LikeUnknownNames) {
  auto c = SecuredContext();
  const std::string ana = "Basic " + Base64Encode("ana:pw");
  EXPECT_EQ(As(*c, "/mod_visus?action=readdataset&dataset=rgb").status, 200);
  for (const char* name : {"f32", "lz", "nosuch"}) {
    Reply r = As(*c, std::string("/mod_visus?action=readdataset&dataset=") + name);
    EXPECT_EQ(r.status, 401) << name;
    EXPECT_EQ(r.Get("WWW-Authenticate"), kWwwAuthenticate);
  }
  EXPECT_EQ(As(*c, "/mod_visus?action=readdataset&dataset=f32", ana).status, 200);
  Reply denied = As(*c, "/api/v1/datasets/lz", ana);
  Reply unknown = As(*c, "/api/v1/datasets/zz", ana);
  EXPECT_EQ(denied.status, 404);
  EXPECT_EQ(unknown.status, 404);
  std::string body = denied.body;
  body.replace(body.find("'lz'"), 4, "'zz'");
  EXPECT_EQ(body, unknown.body);
  EXPECT_EQ(As(*c, "/api/v1/datasets", "Basic " + Base64Encode("ana:nope")).status, 401);
  EXPECT_EQ(As(*c, "/mod_visus?action=list").body.find("f32"), std::string::npos);
  EXPECT_NE(As(*c, "/mod_visus?action=list", ana).body.find("f32"), std::string::npos);
  EXPECT_EQ(As(*c, "/mod_visus?action=list", ana).body.find("\"lz\""), std::string::npos);
}

TEST(Router, ClassifiesRoutesAndTrustsOnlyConfiguredProxies) {
  EXPECT_EQ(ClassifyRoute(QueryString::ParseTarget("/mod_visus?action=boxquery&dataset=a")).name,
            "mod_visus:boxquery");
  EXPECT_EQ(ClassifyRoute(QueryString::ParseTarget("/mod_visus?dataset=a")).dataset, "a");
  EXPECT_EQ(ClassifyRoute(QueryString::ParseTarget("/mod_visus?action=evil")).name, "mod_visus:other");
  EXPECT_EQ(ClassifyRoute(QueryString::ParseTarget("/mod_visus?action=list&dataset=a")).dataset, "");
  RouteInfo data = ClassifyRoute(QueryString::ParseTarget("/api/v1/datasets/x%2Fy/data"));
  EXPECT_EQ(data.name, "api:data");
  EXPECT_EQ(data.dataset, "x/y");
  Request r;
  r.remote_address = "10.0.0.1";
  r.headers.emplace_back("X-Forwarded-For", "6.6.6.6, 1.2.3.4");
  EXPECT_EQ(ClientAddress(r, {}), "10.0.0.1");
  EXPECT_EQ(ClientAddress(r, {"10.0.0.1"}), "1.2.3.4");
}

TEST(Metrics, RendersCountersAndHistograms) {
  Metrics m;
  m.Observe("mod_visus:boxquery", 200, 0.003, 100);
  m.Observe("mod_visus:boxquery", 200, 0.2, 50);
  m.Observe("api:data", 404, 20.0, 10);
  m.AuthFailure();
  MetricsGauges g;
  g.open_connections = 3;
  const std::string text = m.Render(g);
  EXPECT_NE(text.find("hzio_http_requests_total{route=\"mod_visus:boxquery\",status=\"200\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("hzio_http_request_duration_seconds_bucket{route=\"mod_visus:boxquery\",le=\"0.005\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("hzio_http_request_duration_seconds_bucket{route=\"mod_visus:boxquery\",le=\"+Inf\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("hzio_http_request_duration_seconds_bucket{route=\"api:data\",le=\"10\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("hzio_http_response_bytes_total{route=\"mod_visus:boxquery\"} 150\n"), std::string::npos);
  EXPECT_NE(text.find("hzio_auth_failures_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("hzio_open_connections 3\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE hzio_http_request_duration_seconds histogram\n"), std::string::npos);
}

TEST(Operations, LiveReadyAndMetricsWithoutCredentials) {
  auto c = SecuredContext();
  Request r;
  r.target = "/health/ready";
  EXPECT_TRUE(IsOperationsTarget(r.target));
  EXPECT_FALSE(IsOperationsTarget("/health/other"));
  EXPECT_EQ(HandleOperations(*c, r, {}, true, "").status, 200);
  Reply busy = HandleOperations(*c, r, {}, false, "shutting down");
  EXPECT_EQ(busy.status, 503);
  EXPECT_NE(busy.body.find("shutting down"), std::string::npos);
  r.target = "/api/v1/health";
  Reply health = HandleOperations(*c, r, {}, true, "");
  EXPECT_NE(health.body.find("\"datasets\":1"), std::string::npos) << health.body;  // anonymous: public only
  r.target = "/metrics";
  EXPECT_NE(HandleOperations(*c, r, {}, true, "").Get("Content-Type").find("version=0.0.4"), std::string::npos);
}

TEST(QueryCost, BlocksReadAreCappedPerRequest) {
  ServerOptions o;
  o.max_read_bytes = 4 * 64 * 3;  // rgb: 2^6 samples of uint8[3] per block, so four blocks
  auto c = testing::GoldenContext(o);
  Reply whole = testing::Get(*c, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=12");
  EXPECT_EQ(whole.status, 413) << whole.Get("visus-errormsg");
  EXPECT_NE(whole.Get("visus-errormsg").find("bytes read per request"), std::string::npos);
  Reply api = testing::Get(*c, "/api/v1/datasets/rgb/data");
  EXPECT_EQ(api.status, 413);
  EXPECT_NE(api.body.find("bytes read per request"), std::string::npos) << api.body;
  Reply coarse = testing::Get(*c, "/api/v1/datasets/rgb/data?level=6");  // level 6: block 0 only
  EXPECT_EQ(coarse.status, 200) << coarse.body;
  Reply small = testing::Get(*c, "/mod_visus?action=boxquery&dataset=rgb&box=0%203%200%203&toh=7");
  EXPECT_EQ(small.status, 200) << small.Get("visus-errormsg");
}

// Pieces of a streamed box body, concatenated, are the bytes of the whole reply; zip pieces make
// one zlib stream of them.
TEST(BoxBodyStream, PiecesEqualTheWholeReply) {
  auto c = testing::GoldenContext();
  for (const char* name : {"f32", "rgb", "lz"}) {
    auto ds = c->registry.Find(name);
    BoxQuery q;
    Dataset::Resolved resolved = ds->dataset->Resolve(q);
    const Field& field = ds->dataset->header().fields[0];
    std::string whole(static_cast<size_t>(field.dtype.BytesFor(resolved.grid.NumSamples())), '\0');
    ReadBoxCached(*ds, c->cache, resolved, reinterpret_cast<uint8_t*>(whole.data()));
    for (int64_t piece : {int64_t{1} << 16, int64_t{100000}, int64_t{1} << 24}) {
      BoxBodyStream raw(ds, c->shared, resolved, "HDR", false, 1, piece);
      std::string got, p;
      int pieces = 0;
      while (raw.Next(p)) {
        EXPECT_LE(static_cast<int64_t>(p.size()), raw.NextPieceBound() + 3);
        got += p;
        ++pieces;
      }
      EXPECT_EQ(got, "HDR" + whole) << name << " " << piece;
      EXPECT_EQ(raw.Size(), static_cast<int64_t>(got.size()));
      if (static_cast<int64_t>(whole.size()) > 2 * piece) EXPECT_GT(pieces, 2);
      BoxBodyStream zip(ds, c->shared, resolved, "", true, 1, piece);
      EXPECT_EQ(zip.Size(), -1);
      std::string z;
      while (zip.Next(p)) z += p;
      std::string back(whole.size() + 16, '\0');
      uLongf n = back.size();
      ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(back.data()), &n, reinterpret_cast<const Bytef*>(z.data()),
                           z.size()),
                Z_OK);
      back.resize(n);
      EXPECT_EQ(back, whole) << name;
    }
  }
}

}  // namespace
}  // namespace hzio::server
