#include "config/dataset_version.h"

#include <openssl/evp.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "hzio/util/error.h"

namespace hzio::server {

FileIdentity StatIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw Error(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo, path + ": " + std::strerror(err));
  }
  FileIdentity id;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<int64_t>(st.st_size);
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return id;
}

std::string DatasetVersion(const std::string& path, const FileIdentity& identity) {
  std::ifstream in(path, std::ios::binary);
  Check(static_cast<bool>(in), ErrorCode::kIo, path + ": cannot read the header to version it");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  Check(EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr) == 1, ErrorCode::kInternal,
        "SHA-256 failed in OpenSSL");
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < 16 && i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out + "-" + std::to_string(identity.mtime_ns);
}

uint64_t VersionDigest(const std::string& version) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : version) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace hzio::server
