/// Real servers for the tests of remote datasets, started on free loopback ports with fresh
/// folders and stopped with the object: MinIO (the S3-compatible store, which checks SigV4
/// signatures; scripts/setup-deps.sh installs it into <repo>/.tools/bin) and nginx (a static web
/// server with Range support, from Debian). A missing binary is an error naming how to install it:
/// these tests never skip.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace hzio::testing {

/// A free TCP port on 127.0.0.1 (bound and released).
int FreeLoopbackPort();

class MinioServer {
 public:
  static constexpr const char* kAccessKey = "hziotest";
  static constexpr const char* kSecretKey = "hziotest-secret-key";

  MinioServer();
  ~MinioServer();
  MinioServer(const MinioServer&) = delete;
  MinioServer& operator=(const MinioServer&) = delete;

  /// "http://127.0.0.1:PORT".
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// OpenVisus's URL form for `bucket`/`key` with this server's endpoint and credentials.
  std::string DatasetUrl(const std::string& bucket, const std::string& key) const;

  void CreateBucket(const std::string& bucket);
  void Put(const std::string& bucket, const std::string& key, const std::string& bytes);
  /// Uploads every file under `folder` as `prefix/<relative path>` (as `aws s3 sync` lays it out).
  void UploadFolder(const std::string& folder, const std::string& bucket, const std::string& prefix);

  /// Stops the server (Start() again serves the same data on the same port).
  void Stop();
  void Start();

  /// HZIO_MINIO_BIN, else <source>/.tools/bin/minio, else minio on PATH.
  static std::string Binary();

 private:
  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

class NginxServer {
 public:
  /// Serves `root` at http://127.0.0.1:PORT/.
  explicit NginxServer(const std::string& root);
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + path; }

 private:
  TempDir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace hzio::testing
