// hzio-server: the same as `hzio serve`.
#include "hzio_server/serve_command.h"

int main(int argc, char** argv) { return hzio::server::RunServeCommand(argc, argv); }
