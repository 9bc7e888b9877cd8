// The one HTTP transport (http_client.h) against a scripted server: many requests in flight,
// connection reuse, retries of transient failures only, and every way a peer can fail ending
// within a bounded time with an error naming the URL.
#include "hzio/remote/http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "support/scripted_http_server.h"
#include "support/test_support.h"

namespace hzio::internal_remote {
namespace {

using testing::ScriptedHttpServer;
using testing::ScriptedReply;
using testing::ScriptedRequest;

HttpClient::Options Fast() {
  HttpClient::Options o;
  o.connect_timeout_ms = 2000;
  o.stall_timeout_ms = 1000;
  o.attempt_timeout_ms = 5000;
  o.backoff_base_ms = 10;
  o.backoff_max_ms = 50;
  return o;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(HttpClient, ManyRequestsInFlightOverReusedConnections) {
  ScriptedHttpServer server([](const ScriptedRequest& r) {
    ScriptedReply reply;
    reply.body = "body of " + r.target;
    reply.delay_ms = 50;  // requests overlap only if they are in flight together
    return reply;
  });
  HttpClient client(Fast());
  std::vector<HttpRequest> requests(32);
  for (size_t i = 0; i < requests.size(); ++i) requests[i].url = server.Url("/o/" + std::to_string(i));
  std::set<size_t> got;
  const auto t0 = std::chrono::steady_clock::now();
  client.PerformMany(requests, [&](size_t i, HttpResponse&& r) {
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "body of /o/" + std::to_string(i));
    EXPECT_TRUE(got.insert(i).second);
  });
  EXPECT_EQ(got.size(), requests.size());
  EXPECT_GE(server.max_in_flight(), 16);
  EXPECT_LT(SecondsSince(t0), 32 * 0.05 / 4);  // far from one after another
  const int connections = server.connections();
  // A second batch reuses the connections of the first.
  client.PerformMany(requests, [](size_t, HttpResponse&&) {});
  EXPECT_EQ(server.connections(), connections);
  EXPECT_EQ(server.requests(), 64);
  EXPECT_EQ(client.requests_sent(), 64u);
  EXPECT_EQ(client.batches(), 2u);
}

TEST(HttpClient, RetriesTransientStatusesThenSucceeds) {
  std::atomic<int> calls{0};
  ScriptedHttpServer server([&](const ScriptedRequest&) {
    ScriptedReply reply;
    const int n = ++calls;
    reply.status = n == 1 ? 503 : n == 2 ? 500 : 200;
    reply.body = n <= 2 ? "busy" : "ok";
    return reply;
  });
  HttpClient client(Fast());
  int prepared = 0;
  HttpRequest request;
  request.url = server.Url("/x");
  const HttpResponse r = client.Perform(request, [&](HttpRequest& q) {
    ++prepared;  // every attempt is prepared (signed) anew
    q.headers.emplace_back("X-Attempt", std::to_string(prepared));
  });
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "ok");
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(prepared, 3);
  EXPECT_EQ(server.seen().back().headers.at("x-attempt"), "3");
  EXPECT_EQ(request.headers.size(), 0u);  // the caller's request is untouched
}

TEST(HttpClient, NeverRetries4xx) {
  for (int status : {400, 403, 404, 412, 416}) {
    ScriptedHttpServer server([&](const ScriptedRequest&) {
      ScriptedReply reply;
      reply.status = status;
      return reply;
    });
    HttpClient client(Fast());
    EXPECT_EQ(client.Get(server.Url("/x")).status, status);
    EXPECT_EQ(server.requests(), 1) << status;
  }
}

TEST(HttpClient, PersistentServerErrorEndsAfterTheAttempts) {
  ScriptedHttpServer server([](const ScriptedRequest&) {
    ScriptedReply reply;
    reply.status = 500;
    reply.body = "<Error><Code>InternalError</Code></Error>";
    return reply;
  });
  HttpClient::Options o = Fast();
  o.max_attempts = 3;
  HttpClient client(o);
  const auto t0 = std::chrono::steady_clock::now();
  const HttpResponse r = client.Get(server.Url("/x"));  // the last answer, for the caller to report
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(server.requests(), 3);
  EXPECT_LT(SecondsSince(t0), 2.0);
}

TEST(HttpClient, ConnectionCutMidBodyIsRetriedThenReported) {
  std::atomic<int> calls{0};
  ScriptedHttpServer server([&](const ScriptedRequest&) {
    ScriptedReply reply;
    reply.body = std::string(100000, 'x');
    if (++calls <= 2) reply.cut_after_body_bytes = 1000;
    return reply;
  });
  HttpClient client(Fast());
  const HttpResponse r = client.Get(server.Url("/obj"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body.size(), 100000u);  // the third attempt got it whole
  EXPECT_EQ(server.requests(), 3);

  ScriptedHttpServer always_cut([](const ScriptedRequest&) {
    ScriptedReply reply;
    reply.body = std::string(100000, 'x');
    reply.cut_after_body_bytes = 10;
    return reply;
  });
  EXPECT_HZIO_ERROR(client.Get(always_cut.Url("/obj")), ErrorCode::kUnavailable, always_cut.Url("/obj"),
                    "4 attempts");
}

TEST(HttpClient, StalledTransferIsCutWithinTheStallTimeout) {
  ScriptedHttpServer server([](const ScriptedRequest&) {
    ScriptedReply reply;
    reply.body = std::string(1000, 'x');
    reply.stall_ms = 4000;  // headers, then silence
    return reply;
  });
  HttpClient::Options o = Fast();
  o.max_attempts = 2;
  HttpClient client(o);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_HZIO_ERROR(client.Get(server.Url("/slow")), ErrorCode::kUnavailable, server.Url("/slow"), "2 attempts");
  EXPECT_LT(SecondsSince(t0), 3.9);  // two stall timeouts of ~1 s, not the server's 4 s each
}

TEST(HttpClient, UnreachableEndpointFailsFast) {
  int port;
  {
    ScriptedHttpServer closed([](const ScriptedRequest&) { return ScriptedReply{}; });
    port = closed.port();
  }  // nothing listens there any more
  HttpClient client(Fast());
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/visus.idx";
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_HZIO_ERROR(client.Get(url), ErrorCode::kUnavailable, url);
  EXPECT_LT(SecondsSince(t0), 2.0);
}

TEST(HttpClient, OversizedResponseIsAnError) {
  ScriptedHttpServer server([](const ScriptedRequest&) {
    ScriptedReply reply;
    reply.body = std::string(5000, 'x');
    return reply;
  });
  HttpClient client(Fast());
  HttpRequest request;
  request.url = server.Url("/big");
  request.max_body_bytes = 1000;
  EXPECT_HZIO_ERROR(client.Perform(request), ErrorCode::kTooLarge, server.Url("/big"), "larger than 1000 bytes");
}

TEST(HttpClient, ReceiverErrorCancelsTheRest) {
  ScriptedHttpServer server([](const ScriptedRequest& r) {
    ScriptedReply reply;
    reply.delay_ms = r.target == "/0" ? 0 : 300;
    return reply;
  });
  HttpClient client(Fast());
  std::vector<HttpRequest> requests(8);
  for (size_t i = 0; i < requests.size(); ++i) requests[i].url = server.Url("/" + std::to_string(i));
  int delivered = 0;
  EXPECT_HZIO_ERROR(client.PerformMany(requests,
                                       [&](size_t, HttpResponse&&) {
                                         ++delivered;
                                         throw Error(ErrorCode::kCorrupt, "receiver refused the block");
                                       }),
                    ErrorCode::kCorrupt, "receiver refused");
  EXPECT_EQ(delivered, 1);
  // The client is usable afterwards.
  EXPECT_EQ(client.Get(server.Url("/0")).status, 200);
}

TEST(HttpClient, PutSendsTheBody) {
  ScriptedHttpServer server([](const ScriptedRequest& r) {
    ScriptedReply reply;
    reply.body = r.method + ":" + r.body;
    return reply;
  });
  HttpClient client(Fast());
  HttpRequest put;
  put.method = "PUT";
  put.url = server.Url("/k");
  put.body = std::make_shared<const std::string>(std::string(3 << 20, 'z'));
  const HttpResponse r = client.Perform(put);
  EXPECT_EQ(r.body.size(), 4u + (3u << 20));
  EXPECT_EQ(r.body.substr(0, 5), "PUT:z");
  EXPECT_EQ(server.seen().back().headers.count("expect"), 0u);  // no 100-continue round trip
}

TEST(HttpClient, BackoffIsBoundedAndJittered) {
  EXPECT_EQ(BackoffMilliseconds(1, 100, 5000, 0.0), 0);
  EXPECT_EQ(BackoffMilliseconds(1, 100, 5000, 0.5), 100);
  EXPECT_EQ(BackoffMilliseconds(3, 100, 5000, 0.999), 799);
  EXPECT_EQ(BackoffMilliseconds(30, 100, 5000, 0.5), 2500);  // capped
  EXPECT_TRUE(IsTransientFailure(0, 503));
  EXPECT_TRUE(IsTransientFailure(0, 429));
  EXPECT_FALSE(IsTransientFailure(0, 404));
  EXPECT_FALSE(IsTransientFailure(0, 200));
}

}  // namespace
}  // namespace hzio::internal_remote
