// `hzio serve` / `hzio-server` entry point (design.md §3, §5).
#include "hzio_server/serve_command.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "config/dataset_registry.h"
#include "config/server_options.h"
#include "handlers/static_files.h"
#include "http/server.h"
#include "http/tls_context.h"
#include "hzio/util/error.h"

namespace hzio::server {

namespace {

OpenOptions DatasetOpenOptions(const ServerOptions& options) {
  OpenOptions open;
  open.threads = 1;  // requests run in parallel on the worker pool; one decoder each
  open.max_query_bytes = options.max_query_bytes;
  return open;
}

std::shared_ptr<ServerContext> MakeContext(ServerOptions options, std::shared_ptr<ServerShared> shared,
                                           const DatasetRegistry* previous) {
  DatasetRegistry registry = DatasetRegistry::Open(options.datasets, DatasetOpenOptions(options), previous);
  registry.OnReopen([shared](const ServedDataset&) { shared->metrics.DatasetReopened(); });
  return std::make_shared<ServerContext>(std::move(registry), std::move(options), std::move(shared));
}

// SIGHUP: the same arguments parsed again (so the config files are read again). What the
// transport was started with (addresses, TLS, threads, timeouts, budget) stays.
std::shared_ptr<ServerContext> ReloadContext(const ServerContext& current) {
  std::vector<std::string> args = current.options.args;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  bool help = false;
  ServerOptions next = ParseServeArgs(static_cast<int>(argv.size()), argv.data(), &help);
  ServerOptions merged = current.options;
  merged.datasets = next.datasets;
  merged.users = next.users;
  merged.rate_limit = next.rate_limit;
  merged.cors_origins = next.cors_origins;
  merged.trusted_proxies = next.trusted_proxies;
  merged.max_query_bytes = next.max_query_bytes;
  merged.max_read_bytes = next.max_read_bytes;
  merged.max_blocks_per_query = next.max_blocks_per_query;
  merged.max_age_seconds = next.max_age_seconds;
  merged.wire_zip_level = next.wire_zip_level;
  auto context = MakeContext(std::move(merged), current.shared, &current.registry);
  context->web_root = current.web_root;
  return context;
}

std::string Url(const char* scheme, const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(scheme) + "://" + (v6 ? "[" : "") + host + (v6 ? "]" : "") + ":" + std::to_string(port) + "/";
}

}  // namespace

int RunServeCommand(int argc, char** argv) {
  try {
    bool help = false;
    ServerOptions options = ParseServeArgs(argc, argv, &help);
    if (help) {
      std::cout << ServeUsage();
      return 0;
    }
    for (const std::string& w : ExposureWarnings(options)) std::cerr << "hzio serve: " << w << "\n";
    auto shared = std::make_shared<ServerShared>(options.cache_bytes);
    auto context = MakeContext(options, shared, nullptr);
    if (context->registry.size() == 0)
      std::cerr << "hzio serve: warning: no datasets given; serving only the web files and the API\n";
    context->web_root = options.web_root.empty() ? DefaultWebRoot() : options.web_root;
    HttpServer server(context);
    const bool tls = !options.tls_cert.empty();
    const int port = server.Bind(options.host, options.port, tls ? MakeTlsContext(options.tls_cert, options.tls_key) : nullptr);
    const int http_port = options.http_port >= 0 ? server.Bind(options.host, options.http_port) : -1;
    server.HandleSignals(ReloadContext);
    // The first line is what scripts wait for (the port when --port 0 was given).
    std::printf("hzio serve: listening on %s\n", Url(tls ? "https" : "http", options.host, port).c_str());
    if (http_port >= 0) std::printf("hzio serve: listening on %s\n", Url("http", options.host, http_port).c_str());
    std::fflush(stdout);
    server.Run();
    if (!server.JoinWorkers(1.0)) {
      // Workers stuck in a read (a FIFO, a hung file system) must not keep a stopped server alive.
      std::fprintf(stderr, "hzio serve: stopped; abandoning workers still busy after the grace period\n");
      std::fflush(stderr);
      std::fflush(stdout);
      std::_Exit(0);
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "hzio serve: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "hzio serve: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace hzio::server
