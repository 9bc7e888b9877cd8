#include "hzio/storage/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hzio/storage/durable_file.h"
#include "hzio/util/error.h"

namespace hzio {

namespace fs = std::filesystem;

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    fd_ = STDOUT_FILENO;
    owns_fd_ = false;
    return;
  }
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    Check(!S_ISDIR(st.st_mode), ErrorCode::kInvalidArgument, path_ + " is a directory (give a file name)");
    if (!S_ISREG(st.st_mode)) {  // a device, FIFO or socket: written in place, never replaced
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0) throw OsError(path_, "cannot open for writing");
      return;
    }
    target_ = fs::canonical(path_).string();  // write through symbolic links
  } else {
    struct stat lst {};
    Check(::lstat(path_.c_str(), &lst) != 0, ErrorCode::kInvalidArgument,
          path_ + " is a symbolic link to nothing (" + std::strerror(errno) + ")");
    target_ = path_;
  }
  const fs::path t(target_);
  temporary_ = (t.parent_path() / ("." + t.filename().string() + ".hzio-tmp." + std::to_string(::getpid()))).string();
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const Error e = OsError(ParentDirectory(target_), "cannot create a temporary file to write " + path_ + " through");
    temporary_.clear();
    throw e;
  }
  // A replaced file keeps its permissions (a new one gets 0666 minus the umask).
  if (st.st_mode != 0 && S_ISREG(st.st_mode)) (void)!::fchmod(fd_, st.st_mode & 07777);
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && owns_fd_) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::Write(const uint8_t* data, int64_t size) {
  Check(fd_ >= 0, ErrorCode::kInternal, path_ + ": write after Finish()");
  for (int64_t done = 0; done < size;) {
    const ssize_t w = ::write(fd_, data + done, static_cast<size_t>(std::min<int64_t>(size - done, int64_t{1} << 30)));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw OsError(path_, "cannot write");
    done += w;
  }
}

void OutputFile::Restart() {
  Check(CanRestart(), ErrorCode::kInternal, path_ + ": cannot restart an output written in place");
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) throw OsError(temporary_, "cannot truncate");
}

void OutputFile::Finish() {
  Check(fd_ >= 0, ErrorCode::kInternal, path_ + ": Finish() called twice");
  const int fd = fd_;
  fd_ = -1;
  if (!owns_fd_) return;
  if (::close(fd) != 0) throw OsError(path_, "cannot write (close failed)");
  if (temporary_.empty()) return;
  RenameFile(temporary_, target_);
  temporary_.clear();
}

}  // namespace hzio
