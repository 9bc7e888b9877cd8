// `hzio serve` / `hzio-server` entry point (design.md §3, §5).
#include "hzio_server/serve_command.h"

#include <cstdio>
#include <iostream>

#include "config/dataset_registry.h"
#include "config/server_options.h"
#include "handlers/static_files.h"
#include "http/server.h"
#include "hzio/util/error.h"

namespace hzio::server {

int RunServeCommand(int argc, char** argv) {
  try {
    bool help = false;
    ServerOptions options = ParseServeArgs(argc, argv, &help);
    if (help) {
      std::cout << ServeUsage();
      return 0;
    }
    OpenOptions open;
    open.threads = 1;  // requests run in parallel on the worker pool; one decoder each
    open.max_query_bytes = options.max_query_bytes;
    open.cache_dir = options.cache_dir;  // remote datasets: the disk cache below the server's own
    open.cache_max_bytes = options.cache_max_bytes;
    open.memory_cache = false;  // the server keeps decoded blocks in its own cache
    DatasetRegistry registry = DatasetRegistry::Open(options.datasets, open);
    if (registry.all().empty())
      std::cerr << "hzio serve: warning: no datasets given; serving only the web files and the API\n";
    std::string web_root = options.web_root.empty() ? DefaultWebRoot() : options.web_root;
    auto context = std::make_shared<ServerContext>(std::move(registry), options);
    context->web_root = web_root;
    HttpServer server(context);
    const int port = server.Bind(options.host, options.port);
    const bool v6 = options.host.find(':') != std::string::npos;
    std::printf("hzio serve: listening on http://%s%s%s:%d/\n", v6 ? "[" : "", options.host.c_str(), v6 ? "]" : "",
                port);
    std::fflush(stdout);
    server.Run(/*handle_signals=*/true);
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
