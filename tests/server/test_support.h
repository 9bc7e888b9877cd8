// Server-specific helpers of the handler tests (the rest is tests/support/): a context serving the
// golden datasets written by OpenVisus (../shared/testdata/idx-golden) and request shortcuts.
#pragma once

#include <memory>
#include <string>

#include "handlers/router.h"
#include "handlers/server_context.h"
#include "hzio/access/dataset.h"
#include "support/test_support.h"

namespace hzio::server::testing {

/// Serves rgb (hz raw, 100x60 uint8[3]), rgbzip, f32 (zip row-major 3-D), lz (lz4 int16), hz, rm.
inline std::unique_ptr<ServerContext> GoldenContext(ServerOptions options = {}) {
  std::vector<DatasetEntry> entries = {
      {"rgb", hzio::testing::GoldenPath("rgb_hz_raw/visus.idx"), ""},   {"rgbzip", hzio::testing::GoldenPath("rgb_hz_zip/visus.idx"), "g1"},
      {"f32", hzio::testing::GoldenPath("f32/visus.idx"), ""},          {"lz", hzio::testing::GoldenPath("lz/visus.idx"), "g1"},
      {"hz", hzio::testing::GoldenPath("tiny/hz.idx"), ""},             {"rm", hzio::testing::GoldenPath("tiny/rm.idx"), ""}};
  OpenOptions open;
  open.threads = 1;
  return std::make_unique<ServerContext>(DatasetRegistry::Open(entries, open), options);
}

inline Reply Get(ServerContext& context, const std::string& target, const std::string& method = "GET") {
  Request r;
  r.method = method;
  r.target = target;
  r.headers.emplace_back("Host", "127.0.0.1:8080");
  return HandleRequest(context, r);
}

}  // namespace hzio::server::testing
