#include "hzio/storage/lock_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <system_error>
#include <thread>

#include "hzio/storage/durable_file.h"
#include "hzio/util/error.h"
#include "hzio/util/strings.h"

namespace hzio {

namespace {

// Whether the write lock was taken; false when someone holds it. Throws on other errors.
bool TryLock(int fd, const std::string& path) {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;  // the whole file (l_start = l_len = 0); l_pid must be 0 for OFD locks
  for (;;) {
    if (::fcntl(fd, F_OFD_SETLK, &fl) == 0) return true;
    if (errno == EAGAIN || errno == EACCES) return false;
    if (errno != EINTR) throw OsError(path, "cannot lock");
  }
}

// What the holder wrote into the lock file, as "pid N on host H (started at T)".
std::string Holder(int fd) {
  char buffer[512];
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid, host, started;
  if (n > 0) {
    for (const std::string& line : Split(std::string_view(buffer, static_cast<size_t>(n)), '\n')) {
      const size_t space = line.find(' ');
      if (space == std::string::npos) continue;
      const std::string key = line.substr(0, space), value = Trim(line.substr(space + 1));
      if (key == "pid") pid = value;
      else if (key == "host") host = value;
      else if (key == "started") started = value;
    }
  }
  if (pid.empty()) return "another process (which has not recorded itself yet)";
  std::string s = "pid " + pid;
  if (!host.empty()) s += " on host " + host;
  if (!started.empty()) s += " (started at " + started + ")";
  return s;
}

std::string Identity() {
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[64] = {0};
  std::tm tm {};
  ::localtime_r(&now, &tm);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
  return "pid " + std::to_string(::getpid()) + "\nhost " + host + "\nstarted " + when + "\n";
}

// Whether `path` names the open file `fd` (false once it was removed or replaced).
bool IsNamedBy(int fd, const std::string& path) {
  struct stat held {}, named {};
  if (::fstat(fd, &held) != 0) throw OsError(path, "cannot stat");
  return ::stat(path.c_str(), &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino;
}

// Waits until this process locks `fd`'s file (true) or the file is no longer at `path` (false).
// Polled, not blocked on (F_OFD_SETLKW): a holder letting go removes its file before its close
// ends, and a process it forked may keep that file open and locked for as long as it lives; the
// lock is then the file at the path.
bool WaitForLockOrRemoval(int fd, const std::string& path) {
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(2 * pause, std::chrono::milliseconds(50))) {
    std::this_thread::sleep_for(pause);
    if (TryLock(fd, path)) return true;
    if (!IsNamedBy(fd, path)) return false;
  }
}

// The last close of an unlinked file frees its inode, which on ext4 (data=ordered) waits for the
// journal commit under way: seconds when gigabytes a writer just made are being written back
// (measured: bench/mpi/RESULTS.md, issue 18). The writer has nothing to wait for there.
void CloseInBackground(int fd) {
  try {
    std::thread([fd] { ::close(fd); }).detach();
  } catch (const std::system_error&) {
    ::close(fd);  // no thread to spare: close here
  }
}

}  // namespace

std::string LockPathFor(const std::string& idx_path) { return idx_path + ".lock"; }

std::unique_ptr<LockFile> LockFile::Acquire(const std::string& lock_path, const std::string& what,
                                            const LockOptions& options) {
  MakeDirectories(ParentDirectory(lock_path));
  ScopedFd fd;
  bool noted = false;  // on_wait is called once
  for (;;) {
    fd = ScopedFd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (!fd.valid()) throw OsError(lock_path, "cannot open the dataset's lock file");
    if (!TryLock(fd.get(), lock_path)) {
      // A holder letting go has removed the file already and keeps it locked until its close
      // ends: that file is not the lock any more, the one at the path now is.
      if (!IsNamedBy(fd.get(), lock_path)) continue;
      if (!noted) {  // (without wait, the first pass throws)
        // The holder records itself just after taking the lock: give it a moment to do so.
        std::string holder = Holder(fd.get());
        for (int i = 0; i < 50 && holder.rfind("pid ", 0) != 0; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(4));
          holder = Holder(fd.get());
        }
        if (!options.wait)
          throw Error(ErrorCode::kLocked, what + " is being written by " + holder + "; use --wait to wait for it");
        if (options.on_wait) options.on_wait(what + " is being written by " + holder + "; waiting for it to finish");
        noted = true;
      }
      if (!WaitForLockOrRemoval(fd.get(), lock_path)) continue;
    }
    // A holder removes the file as it lets go (below): a lock taken on a file opened before that
    // is a lock on nothing; the file at the path now is the lock.
    if (IsNamedBy(fd.get(), lock_path)) break;
  }
  const std::string me = Identity();
  // Written over the old content, then cut to length: the file is never seen empty meanwhile.
  if (::pwrite(fd.get(), me.data(), me.size(), 0) != static_cast<ssize_t>(me.size()) ||
      ::ftruncate(fd.get(), static_cast<off_t>(me.size())) != 0)
    throw OsError(lock_path, "cannot record the lock holder");
  return std::unique_ptr<LockFile>(new LockFile(lock_path, fd.Release()));
}

LockFile::~LockFile() {
  // Removed while still held, so that no lock file outlives a writer: OpenVisus's IdxFile::save
  // takes `<name>.idx.lock` by creating it exclusively and spins while one exists. From here on a
  // new writer creates and locks a new file; one that opened this file before moves on to that.
  if (::unlink(path_.c_str()) == 0) CloseInBackground(fd_);
  else ::close(fd_);  // the file stays: the next writer must find it unlocked at once
}

bool IsAbandonedLockFile(const std::string& lock_path) {
  ScopedFd fd(::open(lock_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  struct flock fl {};
  fl.l_type = F_WRLCK;  // would a writer's lock be granted? (OFD locks conflict even within a process)
  fl.l_whence = SEEK_SET;
  if (::fcntl(fd.get(), F_OFD_GETLK, &fl) != 0) return false;
  return fl.l_type == F_UNLCK;
}

}  // namespace hzio
