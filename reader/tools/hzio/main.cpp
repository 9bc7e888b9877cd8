// `hzio`: the command line of design.md §3. Dispatches to one subcommand and turns every error
// into a single `hzio: <message>` line on stderr: exit status 2 for usage errors, 1 otherwise.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "cli.h"
#include "hzio/util/error.h"

namespace {

constexpr char kUsage[] =
    "usage: hzio COMMAND [options]   (hzio COMMAND --help for details)\n"
    "\n"
    "Multiresolution IDX (OpenVisus-compatible) datasets.\n"
    "\n"
    "commands:\n"
    "  info DATASET [--json]          describe a dataset (.idx path, server, web or s3:// URL)\n"
    "  create OUT.idx --dims ...      create an empty dataset\n"
    "  convert INPUT OUT.idx          write a .npy or raw array into a dataset\n"
    "  copy SRC DST.idx               re-lay out a dataset (classic <-> ARCO, compression, blocks)\n"
    "  read DATASET -o OUT.npy|-      read a box at a resolution into .npy or raw (- = stdout)\n"
    "  verify DATASET [--repair]      check that every block decodes; list (or reclaim) leftovers\n"
    "  gc DATASET                     reclaim leftovers of interrupted writes (verify --repair)\n"
    "  serve [DATASET|DIR ...]        serve datasets over HTTP(S) (mod_visus + JSON API)\n"
    "  passwd                         hash a secret read on stdin for the server's users\n"
    "\n"
    "Writes (create, convert, verify --repair) are transactions: a crash leaves the dataset as it\n"
    "was or as the write left it, never a mix. One writer at a time holds DATASET.idx.lock; another\n"
    "fails at once naming it, or waits with --wait. Readers never wait.\n"
    "https URLs: --ca-file PEM (or HZIO_CA_FILE) names the CAs of a self-signed server.\n"
    "\n"
    "Remote datasets (web servers, S3) are cached on disk: HZIO_CACHE_DIR (default ~/.cache/hzio),\n"
    "HZIO_CACHE_SIZE (default 10g), or --cache-dir/--cache-size/--no-cache of each command.\n";

// Error messages become exactly one line.
std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

int Dispatch(int argc, char** argv) {
  const std::string command = argv[0];
  if (command == "info") return hzio::cli::RunInfo(argc, argv);
  if (command == "create") return hzio::cli::RunCreate(argc, argv);
  if (command == "convert") return hzio::cli::RunConvert(argc, argv);
  if (command == "copy") return hzio::cli::RunCopy(argc, argv);
  if (command == "read") return hzio::cli::RunRead(argc, argv);
  if (command == "verify") return hzio::cli::RunVerify(argc, argv);
  if (command == "gc") return hzio::cli::RunGc(argc, argv);
  if (command == "serve") return hzio::cli::RunServe(argc, argv);
  if (command == "passwd") return hzio::cli::RunPasswd(argc, argv);
  throw hzio::cli::UsageError("", "unknown command '" + command + "'");
}

// `--ca-file FILE`, accepted by every command: the CAs that may sign an https server's certificate
// (HZIO_CA_FILE for the remote client); taken out before the command parses its own options.
int TakeCaFile(int argc, char** argv) {
  int kept = 0;
  for (int i = 0; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--ca-file") && i + 1 < argc) {
      setenv("HZIO_CA_FILE", argv[++i], 1);
    } else if (!std::strncmp(argv[i], "--ca-file=", 10)) {
      setenv("HZIO_CA_FILE", argv[i] + 10, 1);
    } else {
      argv[kept++] = argv[i];
    }
  }
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  try {
    return Dispatch(TakeCaFile(argc - 1, argv + 1), argv + 1);
  } catch (const hzio::cli::UsageError& e) {
    const std::string hint = e.command().empty() ? "hzio --help" : "hzio " + e.command() + " --help";
    std::fprintf(stderr, "hzio: %s (see '%s')\n", OneLine(e.what()).c_str(), hint.c_str());
    return 2;
  } catch (const hzio::Error& e) {
    std::fprintf(stderr, "hzio: %s\n", OneLine(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "hzio: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hzio: internal error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
}
