// Shared helpers of the server handler tests: a context serving the golden datasets written by
// OpenVisus (../shared/testdata/idx-golden) and request shortcuts.
#pragma once

#include <memory>
#include <string>

#include "handlers/router.h"
#include "handlers/server_context.h"
#include "hzio/access/dataset.h"

namespace hzio::server::testing {

inline std::string Golden(const std::string& rel) { return std::string(HZIO_GOLDEN_DIR) + "/" + rel; }

/// Serves rgb (hz raw, 100x60 uint8[3]), rgbzip, f32 (zip row-major 3-D), lz (lz4 int16), hz, rm.
inline std::unique_ptr<ServerContext> GoldenContext(ServerOptions options = {}) {
  std::vector<DatasetEntry> entries = {
      {"rgb", Golden("rgb_hz_raw/visus.idx"), ""},   {"rgbzip", Golden("rgb_hz_zip/visus.idx"), "g1"},
      {"f32", Golden("f32/visus.idx"), ""},          {"lz", Golden("lz/visus.idx"), "g1"},
      {"hz", Golden("tiny/hz.idx"), ""},             {"rm", Golden("tiny/rm.idx"), ""}};
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
