/// The writer's lock of a dataset (design: one writer at a time, readers never lock): an advisory
/// open-file-description lock (fcntl F_OFD_SETLK) on `<name>.idx.lock` beside the `.idx`, held for
/// the whole write transaction and released by the kernel when the holder exits, however it exits
/// (so a crash never leaves a stale lock on a local file system). The file holds the holder's PID,
/// host and start time for the message another writer gets. The holder removes the file as it
/// lets go (OpenVisus's IdxFile::save waits while a `<name>.idx.lock` exists); a writer that locked
/// a file already removed sees that the path names another file and locks that one instead, so two
/// writers never hold two files of the same name. A crashed writer's file stays, unlocked.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace hzio {

struct LockOptions {
  /// Wait for the holder to finish instead of failing with kLocked.
  bool wait = false;
  /// Called once, before waiting, with a sentence naming the holder (for a "waiting..." note).
  std::function<void(const std::string&)> on_wait;
};

class LockFile {
 public:
  /// Locks `lock_path` (created if missing) on behalf of a write to `what` (the dataset, for
  /// messages). Throws kLocked "WHAT is being written by pid N on host H (started at T); use
  /// --wait to wait" when another writer holds it and !wait, kIo when the file cannot be created.
  static std::unique_ptr<LockFile> Acquire(const std::string& lock_path, const std::string& what,
                                           const LockOptions& options = {});
  /// Releases: removes the file at once (a new writer may lock a new one), and closes it on a
  /// thread of its own, since that close can wait seconds for the file system's journal.
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  LockFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

/// `<idx_path>.lock`.
std::string LockPathFor(const std::string& idx_path);

/// Whether `lock_path` is a lock file that nobody holds: what a killed writer leaves (harmless to
/// hzio, but OpenVisus's header save waits for as long as it exists). False when it is missing,
/// not a regular file, or held (also by this process, through another LockFile).
bool IsAbandonedLockFile(const std::string& lock_path);

}  // namespace hzio
