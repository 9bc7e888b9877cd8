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

// A connection, plain or TLS, with one receive buffer reused for every reply: replies are read
// in large pieces into it and their bodies counted, never accumulated or shifted byte by byte
// (the generator shares the cores with the server, so its own cost is part of what it measures).
struct Conn {
  static constexpr size_t kBufferBytes = 256 << 10;
  int fd = -1;
  SSL* ssl = nullptr;
  std::vector<char> buf = std::vector<char>(kBufferBytes);
  size_t begin = 0, end = 0;  // unread bytes of buf
  void Close() {
    if (ssl) {
      SSL_free(ssl);
      ssl = nullptr;
    }
    if (fd >= 0) close(fd);
    fd = -1;
    begin = end = 0;
  }
  ssize_t Send(const char* data, size_t n) {
    if (!ssl) return send(fd, data, n, MSG_NOSIGNAL);
    int w = SSL_write(ssl, data, static_cast<int>(n));
    return w > 0 ? w : -1;
  }
  // Appends what arrives to buf (moving the unread bytes to its front when the tail is full).
  ssize_t Fill() {
    if (end == buf.size()) {
      if (begin == 0) return -1;  // a header larger than the buffer
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    const size_t room = buf.size() - end;
    ssize_t r;
    if (!ssl) {
      r = recv(fd, buf.data() + end, room, 0);
    } else {
      // SSL_read returns at most one record; the records already in OpenSSL's read-ahead
      // buffer (one recv fetched several) are taken without another system call.
      size_t got = 0;
      do {
        int n = SSL_read(ssl, buf.data() + end + got, static_cast<int>(room - got));
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      } while (got < room && SSL_has_pending(ssl) == 1);
      r = got > 0 ? static_cast<ssize_t>(got) : -1;
    }
    if (r > 0) end += static_cast<size_t>(r);
    return r;
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
// The body is received whole (every byte decrypted, for TLS) and its length checked.
int ReadResponse(Conn& c, bool* must_close, size_t* body_bytes) {
  static constexpr char kEnd[] = "\r\n\r\n";
  const char* header_end;
  size_t from = 0;  // bytes after c.begin already searched
  for (;;) {
    const char* first = c.buf.data() + c.begin;
    const char* last = c.buf.data() + c.end;
    if ((header_end = std::search(first + from, last, kEnd, kEnd + 4)) != last) break;
    from = c.end - c.begin >= 3 ? c.end - c.begin - 3 : 0;  // "\r\n\r" may end the bytes so far
    if (c.Fill() <= 0) return 0;
  }
  const size_t head_bytes = static_cast<size_t>(header_end - (c.buf.data() + c.begin));
  std::string head = Lower(std::string(c.buf.data() + c.begin, head_bytes));
  c.begin += head_bytes + 4;
  int status = std::atoi(head.c_str() + head.find(' ') + 1);
  long long length = -1;
  size_t at = head.find("\r\ncontent-length:");
  if (at != std::string::npos) length = std::atoll(head.c_str() + at + 17);
  *must_close = head.find("\r\nconnection: close") != std::string::npos || length < 0;
  size_t received = 0;
  auto take = [&](size_t limit) {  // consumes up to `limit` buffered body bytes
    const size_t n = std::min(limit, c.end - c.begin);
    received += n;
    c.begin += n;
    if (c.begin == c.end) c.begin = c.end = 0;
  };
  if (length < 0) {  // body until EOF
    do take(SIZE_MAX);
    while (c.Fill() > 0);
    *body_bytes = received;
    return status;
  }
  const size_t want = static_cast<size_t>(length);
  take(want);
  while (received < want) {
    if (c.Fill() <= 0) return 0;
    take(want - received);
  }
  *body_bytes = received;
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
    SSL_CTX_set_read_ahead(tls, 1);
    SSL_CTX_set_default_read_buffer_len(tls, Conn::kBufferBytes);
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
      Conn conn;
      std::string request;
      size_t next = static_cast<size_t>(c) * 7919 % targets.size();
      while (Clock::now() < stop) {
        const std::string& target = targets[next++ % targets.size()];
        request.assign("GET ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: hzio-bench\r\n");
        request.append(o.headers).append(o.keepalive ? "" : "Connection: close\r\n").append("\r\n");
        const auto t0 = Clock::now();
        if (conn.fd < 0) {
          open(conn);
          ++connects;
        }
        bool must_close = true;
        size_t body = 0;
        int status = conn.fd >= 0 && SendAll(conn, request) ? ReadResponse(conn, &must_close, &body) : 0;
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
