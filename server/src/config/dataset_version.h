/// Which version of a dataset is being served (idx-format.md §2: the `.idx` names everything a
/// reader uses). Writers commit a version by renaming a new `.idx` over the old one (TEAM contract
/// 3), so the header file's identity (inode, size, mtime) changes with every commit: the server
/// stats it to notice a commit, and derives a version string from the header's *content* and
/// mtime so that two instances serving the same files on shared storage agree on it (and so on
/// ETags) — no device numbers, paths or process state enter it.
/// Once hzio::Dataset::Version() lands (WP blocksource) DatasetVersion() returns it instead.
#pragma once

#include <cstdint>
#include <string>

namespace hzio::server {

/// What stat says about a file; equal identities mean "not replaced since".
struct FileIdentity {
  uint64_t device = 0, inode = 0;
  int64_t size = -1;
  int64_t mtime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

/// stat() of `path`; throws hzio::Error(kNotFound/kIo) naming the path.
FileIdentity StatIdentity(const std::string& path);

/// The version string of the `.idx` at `path` whose identity is `identity`: a SHA-256 of its bytes
/// (hex, 32 digits) and its mtime. Throws hzio::Error(kIo) naming the path.
std::string DatasetVersion(const std::string& path, const FileIdentity& identity);

/// A 64-bit digest of a version string (what ETags are computed from).
uint64_t VersionDigest(const std::string& version);

}  // namespace hzio::server
