// hzio_http_load: a small closed-loop HTTP/1.1 load generator for the server benchmark. Each of
// N connections sends GETs from a target list round-robin for a fixed time, keeping the
// connection alive unless the server closes it (the OpenVisus server closes after every reply)
// or --no-keepalive is given; latencies include reconnects (and TLS handshakes). Prints one JSON
// object. --tls-ca speaks HTTPS (OpenSSL, the server's certificate verified against that CA);
// --header adds a request header (e.g. "Authorization: Bearer TOKEN").
//
//   hzio_http_load --port P --connections N --seconds S --targets FILE [--no-keepalive]
//                  [--tls-ca CA.pem] [--header "Name: value"]...
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int port = 0;
  int connections = 1;
  double seconds = 5;
  bool keepalive = true;
  std::string targets_file;
  std::string tls_ca;
  std::string headers;  // extra request header lines, each ending in \r\n
};

// A connection, plain or TLS.
struct Conn {
  int fd = -1;
  SSL* ssl = nullptr;
  void Close() {
    if (ssl) {
      SSL_free(ssl);
      ssl = nullptr;
    }
    if (fd >= 0) close(fd);
    fd = -1;
  }
  ssize_t Send(const char* data, size_t n) {
    if (!ssl) return send(fd, data, n, MSG_NOSIGNAL);
    int w = SSL_write(ssl, data, static_cast<int>(n));
    return w > 0 ? w : -1;
  }
  ssize_t Recv(char* data, size_t n) {
    if (!ssl) return recv(fd, data, n, 0);
    int r = SSL_read(ssl, data, static_cast<int>(n));
    return r > 0 ? r : -1;
  }
};

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(Conn& c, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = c.Send(data.data() + off, data.size() - off);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Reads one response; returns the status (0 on failure) and whether the connection must close.
int ReadResponse(Conn& c, std::string& buffer, bool* must_close, size_t* body_bytes) {
  size_t header_end;
  while ((header_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    char chunk[65536];
    ssize_t n = c.Recv(chunk, sizeof chunk);
    if (n <= 0) return 0;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  std::string head = Lower(buffer.substr(0, header_end));
  int status = std::atoi(head.c_str() + head.find(' ') + 1);
  long long length = -1;
  size_t at = head.find("\r\ncontent-length:");
  if (at != std::string::npos) length = std::atoll(head.c_str() + at + 17);
  *must_close = head.find("\r\nconnection: close") != std::string::npos || length < 0;
  buffer.erase(0, header_end + 4);
  if (length < 0) {  // body until EOF
    char chunk[65536];
    ssize_t n;
    while ((n = c.Recv(chunk, sizeof chunk)) > 0) buffer.append(chunk, static_cast<size_t>(n));
    *body_bytes = buffer.size();
    buffer.clear();
    return status;
  }
  while (buffer.size() < static_cast<size_t>(length)) {
    char chunk[65536];
    ssize_t n = c.Recv(chunk, sizeof chunk);
    if (n <= 0) return 0;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  *body_bytes = static_cast<size_t>(length);
  buffer.erase(0, static_cast<size_t>(length));
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--port") o.port = std::stoi(next());
    else if (a == "--connections") o.connections = std::stoi(next());
    else if (a == "--seconds") o.seconds = std::stod(next());
    else if (a == "--targets") o.targets_file = next();
    else if (a == "--no-keepalive") o.keepalive = false;
    else if (a == "--tls-ca") o.tls_ca = next();
    else if (a == "--header") o.headers += next() + "\r\n";
    else {
      std::fprintf(stderr, "hzio_http_load: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  std::vector<std::string> targets;
  std::ifstream in(o.targets_file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) targets.push_back(line);
  if (o.port <= 0 || targets.empty()) {
    std::fprintf(stderr, "hzio_http_load: need --port and a non-empty --targets file\n");
    return 2;
  }

  SSL_CTX* tls = nullptr;
  if (!o.tls_ca.empty()) {
    tls = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(tls, TLS1_2_VERSION);
    if (!tls || SSL_CTX_load_verify_locations(tls, o.tls_ca.c_str(), nullptr) != 1) {
      std::fprintf(stderr, "hzio_http_load: cannot load the CA file %s\n", o.tls_ca.c_str());
      return 2;
    }
    SSL_CTX_set_verify(tls, SSL_VERIFY_PEER, nullptr);
  }
  // A TCP connection, with the TLS handshake (certificate checked for 127.0.0.1) when asked.
  auto open = [&](Conn& c) {
    c.fd = Connect(o.port);
    if (c.fd < 0 || !tls) return c.fd >= 0;
    c.ssl = SSL_new(tls);
    SSL_set_fd(c.ssl, c.fd);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c.ssl), "127.0.0.1");
    if (SSL_connect(c.ssl) != 1) {
      ERR_print_errors_fp(stderr);
      c.Close();
      return false;
    }
    return true;
  };

  std::mutex mu;
  std::vector<double> latencies_ms;
  std::atomic<long long> errors{0}, bytes{0}, connects{0};
  const auto start = Clock::now();
  const auto stop = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < o.connections; ++c) {
    threads.emplace_back([&, c] {
      std::vector<double> mine;
      std::string buffer;
      Conn conn;
      size_t next = static_cast<size_t>(c) * 7919 % targets.size();
      while (Clock::now() < stop) {
        const std::string& target = targets[next++ % targets.size()];
        const std::string request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: hzio-bench\r\n" +
                                    o.headers + (o.keepalive ? "" : "Connection: close\r\n") + "\r\n";
        const auto t0 = Clock::now();
        if (conn.fd < 0) {
          open(conn);
          ++connects;
          buffer.clear();
        }
        bool must_close = true;
        size_t body = 0;
        int status = conn.fd >= 0 && SendAll(conn, request) ? ReadResponse(conn, buffer, &must_close, &body) : 0;
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (status == 200) {
          mine.push_back(ms);
          bytes += static_cast<long long>(body);
        } else {
          ++errors;
          must_close = true;
        }
        if (must_close && conn.fd >= 0) conn.Close();
      }
      conn.Close();
      std::lock_guard<std::mutex> lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) {
    if (latencies_ms.empty()) return 0.0;
    size_t i = static_cast<size_t>(p * static_cast<double>(latencies_ms.size() - 1) + 0.5);
    return latencies_ms[std::min(i, latencies_ms.size() - 1)];
  };
  std::printf(
      "{\"connections\":%d,\"seconds\":%.3f,\"requests\":%zu,\"errors\":%lld,\"connects\":%lld,\"rps\":%.1f,"
      "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"bytes\":%lld}\n",
      o.connections, elapsed, latencies_ms.size(), errors.load(), connects.load(),
      static_cast<double>(latencies_ms.size()) / elapsed, pct(0.50), pct(0.99), bytes.load());
  return 0;
}
