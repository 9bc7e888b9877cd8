/// What a local block source remembers of its `.idx` (TEAM.md contract 3): the file's identity
/// (device, inode, size, mtime) when the dataset was opened. The version a source reads is named
/// by it, and a block file found missing or short is a change of dataset ("kChanged") only when
/// the `.idx` is no longer that file.
#pragma once

#include <optional>
#include <string>

#include "hzio/storage/file.h"

namespace hzio {

class IdxIdentity {
 public:
  /// `known`: the identity when the header was read (nullopt: taken now; kNotFound without a file).
  IdxIdentity(std::string idx_path, std::optional<FileIdentity> known);
  /// Opaque, as Dataset::Version() returns it.
  std::string Version() const { return "idx:" + identity_.ToString(); }
  /// Whether the `.idx` is no longer the one the source was opened with (or is gone).
  bool Changed() const;

 private:
  std::string idx_path_;
  FileIdentity identity_;
};

}  // namespace hzio
