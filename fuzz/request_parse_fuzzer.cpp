// Fuzzes what the server parses from a request before and while answering it (issue 19): the
// target (path, query string, percent escapes), the headers (Authorization: Basic/Bearer,
// If-None-Match, Origin, X-Forwarded-For), the router, the mod_visus actions and the JSON API,
// on the golden datasets with users and access lists configured; streamed bodies are drained.
// Input: line 1 the method, line 2 the target, then "Name: value" header lines.
#include <cstdint>
#include <memory>
#include <string>

#include "handlers/router.h"
#include "handlers/server_context.h"
#include "auth/password_hash.h"
#include "hzio/util/error.h"

namespace {

using namespace hzio;
using namespace hzio::server;

std::unique_ptr<ServerContext> MakeContext() {
  const std::string g = HZIO_GOLDEN_DIR;
  ServerOptions o;
  o.max_query_bytes = 1 << 20;
  o.max_read_bytes = 4 << 20;
  o.stream_piece_bytes = 64 << 10;
  o.users = {UserEntry{"ana", {HashSecret("pw", 1)}, std::nullopt},
             UserEntry{"bob", {HashSecret("token", 1)}, RateLimit{1e9, 1e9}}};
  o.datasets = {{"rgb", g + "/rgb_hz_raw/visus.idx", "", true, {}},
                {"f32", g + "/f32/visus.idx", "g", false, {"ana"}},
                {"lz", g + "/lz/visus.idx", "g", false, {"bob", "*"}},
                {"hz", g + "/tiny/hz.idx", "", true, {}}};
  o.cors_origins = std::vector<std::string>{"https://ok.example"};
  o.trusted_proxies = {"10.0.0.1"};
  OpenOptions open;
  open.threads = 1;
  open.max_query_bytes = o.max_query_bytes;
  DatasetRegistry registry = DatasetRegistry::Open(o.datasets, open);
  return std::make_unique<ServerContext>(std::move(registry), o);
}

std::string Line(const std::string& text, size_t* at) {
  const size_t end = text.find('\n', *at);
  std::string line = text.substr(*at, end == std::string::npos ? std::string::npos : end - *at);
  *at = end == std::string::npos ? text.size() : end + 1;
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<ServerContext> context = MakeContext();
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  Request request;
  request.method = Line(text, &at);
  request.target = Line(text, &at);
  request.remote_address = "10.0.0.1";
  while (at < text.size()) {
    const std::string line = Line(text, &at);
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    request.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1 + (colon + 1 < line.size())));
  }
  Reply reply = HandleRequest(*context, request);  // never throws: every failure is a reply
  if (reply.status < 100 || reply.status > 599) __builtin_trap();
  if (reply.stream) {
    std::string piece;
    int64_t total = 0;
    try {
      while (reply.stream->Next(piece)) total += static_cast<int64_t>(piece.size());
    } catch (const Error&) {
      return 0;  // a read error mid-stream ends the reply: the transport aborts it
    }
    if (reply.stream->Size() >= 0 && total != reply.stream->Size()) __builtin_trap();
  }
  return 0;
}
