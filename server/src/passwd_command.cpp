// `hzio passwd`: secret on stdin -> one-line salted hash (auth/password_hash.h).
#include "hzio_server/passwd_command.h"

#include <termios.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <string>

#include <openssl/crypto.h>

#include "auth/password_hash.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio::server {

namespace {

constexpr char kUsage[] =
    "usage: hzio passwd [--iterations N] < SECRET\n"
    "Reads a secret (a password for HTTP Basic, a token for Bearer) on standard input, one line,\n"
    "and prints its salted PBKDF2-HMAC-SHA256 hash for the server config's users[].secrets.\n";

// Reads one line; on a terminal, without echoing it.
std::string ReadSecret() {
  const bool tty = isatty(STDIN_FILENO) == 1;
  termios saved{};
  if (tty) {
    std::cerr << "secret: " << std::flush;
    tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSANOW, &saved);
    std::cerr << "\n";
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

int RunPasswdCommand(int argc, char** argv) {
  try {
    int iterations = kDefaultPbkdf2Iterations;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "-h" || a == "--help") {
        std::cout << kUsage;
        return 0;
      }
      if (a == "--iterations" && i + 1 < argc) {
        iterations = static_cast<int>(ParseInt64(argv[++i], "--iterations"));
      } else {
        std::cerr << "hzio passwd: unknown argument '" << a << "'\n" << kUsage;
        return 2;
      }
    }
    std::string secret = ReadSecret();
    Check(!secret.empty(), ErrorCode::kInvalidArgument, "no secret on standard input (one line is read)");
    const std::string hash = HashSecret(secret, iterations);
    OPENSSL_cleanse(secret.data(), secret.size());
    std::cout << hash << "\n";
    return 0;
  } catch (const Error& e) {
    std::cerr << "hzio passwd: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace hzio::server
