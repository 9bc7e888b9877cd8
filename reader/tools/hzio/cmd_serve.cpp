// `hzio serve` and `hzio passwd`: handed to the HTTP server library when it is built in (design.md §3, §5).
#include <cstdio>

#include "cli.h"
#include "hzio/util/error.h"

#ifdef HZIO_HAVE_SERVER
#include "hzio_server/passwd_command.h"
#include "hzio_server/serve_command.h"
#endif

namespace hzio::cli {

int RunServe(int argc, char** argv) {
#ifdef HZIO_HAVE_SERVER
  return hzio::server::RunServeCommand(argc, argv);  // argv[0] == "serve"
#else
  (void)argc;
  (void)argv;
  throw Error(ErrorCode::kUnsupported,
              "this hzio was built without the HTTP server (configure with -DHZIO_BUILD_SERVER=ON and "
              "Boost.Beast + nlohmann_json installed)");
#endif
}

int RunPasswd(int argc, char** argv) {
#ifdef HZIO_HAVE_SERVER
  return hzio::server::RunPasswdCommand(argc, argv);
#else
  (void)argc;
  (void)argv;
  throw Error(ErrorCode::kUnsupported, "this hzio was built without the HTTP server, which `passwd` belongs to");
#endif
}

}  // namespace hzio::cli
