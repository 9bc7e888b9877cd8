#include "support/store_servers.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "hzio/remote/object_store.h"

namespace hzio::testing {

namespace fs = std::filesystem;
using internal_remote::HttpClient;
using internal_remote::ObjectStore;

namespace {

bool PortAnswers(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& log) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // a test that crashes takes its servers along
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

void Kill(pid_t& pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = -1;
}

void WaitFor(int port, pid_t pid, const std::string& what, const std::string& log) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid)
      throw std::runtime_error(what + " exited at start; see " + log + ":\n" + ReadText(log));
    if (PortAnswers(port)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error(what + " did not listen on port " + std::to_string(port) + " within 60 s; see " + log);
}

std::shared_ptr<ObjectStore> Store(const std::string& endpoint, const std::string& bucket) {
  const std::string url = endpoint + "/" + bucket + "/x?access_key=" + MinioServer::kAccessKey +
                          "&secret_key=" + MinioServer::kSecretKey;
  return std::make_shared<ObjectStore>(internal_remote::ParseObjectLocation(url),
                                       [](const std::string&) -> std::optional<std::string> { return std::nullopt; },
                                       std::make_shared<HttpClient>());
}

}  // namespace

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

std::string MinioServer::Binary() {
  if (const char* v = std::getenv("HZIO_MINIO_BIN"); v && *v) return v;
  const std::string tools = std::string(HZIO_SOURCE_DIR) + "/.tools/bin/minio";
  if (fs::exists(tools)) return tools;
  for (const char* dir : {"/usr/local/bin", "/usr/bin"})
    if (fs::exists(std::string(dir) + "/minio")) return std::string(dir) + "/minio";
  throw std::runtime_error("MinIO (the S3 server of the tests) is not installed: run scripts/setup-deps.sh, "
                           "which builds it into " + tools + " (or set HZIO_MINIO_BIN)");
}

MinioServer::MinioServer() {
  port_ = FreeLoopbackPort();
  Start();
}

MinioServer::~MinioServer() { Kill(pid_); }

void MinioServer::Start() {
  const std::string log = dir_.File("minio.log");
  pid_ = Spawn({Binary(), "server", dir_.File("data"), "--address", "127.0.0.1:" + std::to_string(port_),
                "--console-address", "127.0.0.1:" + std::to_string(FreeLoopbackPort()), "--quiet"},
               {std::string("MINIO_ROOT_USER=") + kAccessKey, std::string("MINIO_ROOT_PASSWORD=") + kSecretKey,
                "MINIO_BROWSER=off", "MINIO_UPDATE=off", "HOME=" + dir_.path().string()},
               log);
  WaitFor(port_, pid_, "MinIO", log);
  // Listening is not serving yet: wait for the health endpoint.
  HttpClient client;
  for (int i = 0; i < 600; ++i) {
    if (client.Get(endpoint() + "/minio/health/ready").status == 200) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("MinIO never became ready; see " + log);
}

void MinioServer::Stop() { Kill(pid_); }

std::string MinioServer::DatasetUrl(const std::string& bucket, const std::string& key) const {
  return endpoint() + "/" + bucket + "/" + key + "?access_key=" + kAccessKey + "&secret_key=" + kSecretKey;
}

void MinioServer::CreateBucket(const std::string& bucket) {
  auto store = Store(endpoint(), bucket);
  // A loaded machine: MinIO answers its readiness probe before its object layer is up and refuses
  // S3 requests meanwhile (503 XMinioServerNotInitialized); wait for it, bounded.
  for (int i = 0;; ++i) {
    const auto r = store->Put("", std::make_shared<const std::string>());
    if (r.status == 200) return;
    if (r.status != 503 || i >= 600) throw store->ResponseError("", r);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void MinioServer::Put(const std::string& bucket, const std::string& key, const std::string& bytes) {
  auto store = Store(endpoint(), bucket);
  const auto r = store->Put(key, std::make_shared<const std::string>(bytes));
  if (r.status != 200) throw store->ResponseError(key, r);
}

void MinioServer::UploadFolder(const std::string& folder, const std::string& bucket, const std::string& prefix) {
  for (const auto& e : fs::recursive_directory_iterator(folder)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), folder).string();
    Put(bucket, prefix.empty() ? rel : prefix + "/" + rel, ReadText(e.path().string()));
  }
}

NginxServer::NginxServer(const std::string& root) {
  const char* candidates[] = {"/usr/sbin/nginx", "/usr/bin/nginx"};
  std::string binary;
  for (const char* c : candidates)
    if (fs::exists(c)) binary = c;
  if (const char* v = std::getenv("HZIO_NGINX_BIN"); v && *v) binary = v;
  if (binary.empty())
    throw std::runtime_error("nginx (the static web server of the tests) is not installed: run scripts/setup-deps.sh");
  port_ = FreeLoopbackPort();
  const std::string d = dir_.path().string();
  fs::create_directories(d + "/tmp");
  std::ofstream(d + "/nginx.conf") << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
                                   << "pid " << d << "/nginx.pid;\nerror_log " << d << "/error.log;\n"
                                   << "events { worker_connections 256; }\n"
                                   << "http {\n  access_log off;\n  client_body_temp_path " << d << "/tmp;\n"
                                   << "  proxy_temp_path " << d << "/tmp;\n  fastcgi_temp_path " << d << "/tmp;\n"
                                   << "  uwsgi_temp_path " << d << "/tmp;\n  scgi_temp_path " << d << "/tmp;\n"
                                   << "  server {\n    listen 127.0.0.1:" << port_ << ";\n    root " << root
                                   << ";\n    location / { }\n  }\n}\n";
  const std::string log = d + "/stderr.log";
  pid_ = Spawn({binary, "-p", d, "-c", d + "/nginx.conf", "-e", d + "/error.log"}, {}, log);
  WaitFor(port_, pid_, "nginx", log);
}

NginxServer::~NginxServer() { Kill(pid_); }

}  // namespace hzio::testing
