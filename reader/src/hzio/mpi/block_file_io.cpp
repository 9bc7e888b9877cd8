#include "hzio/mpi/block_file_io.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"

namespace hzio::mpi {

namespace {

std::string OsError(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Writes `iov` (consumed) at `offset` with as few pwritev calls as IOV_MAX allows.
void WriteVectorAt(int fd, std::vector<iovec>& iov, off_t offset, const std::string& path) {
  size_t first = 0;
  while (first < iov.size()) {
    CrashPoint("write " + path);
    const int n = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
    const ssize_t w = ::pwritev(fd, iov.data() + first, n, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw Error(ErrorCode::kIo, OsError("cannot write", path));
    offset += w;
    size_t left = static_cast<size_t>(w);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < iov.size() && left > 0) {
      iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
}

}  // namespace

namespace {

void CreateParentDirectories(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);  // tolerates another rank creating it too
  Check(!ec, ErrorCode::kIo, "cannot create directory " + parent.string() + ": " + ec.message());
}

}  // namespace

void WriteWholeFile(const std::string& path, const std::vector<ByteSpan>& pieces, bool sync) {
  CreateParentDirectories(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  Check(fd >= 0, ErrorCode::kIo, OsError("cannot create", path));
  // Merge adjacent pieces, then write with as few writev calls as IOV_MAX allows.
  std::vector<iovec> iov;
  for (const ByteSpan& p : pieces) {
    if (p.size <= 0) continue;
    if (!iov.empty() && static_cast<const uint8_t*>(iov.back().iov_base) + iov.back().iov_len == p.data)
      iov.back().iov_len += static_cast<size_t>(p.size);
    else
      iov.push_back(iovec{const_cast<uint8_t*>(p.data), static_cast<size_t>(p.size)});
  }
  try {
    WriteVectorAt(fd, iov, 0, path);
    if (sync) Check(::fsync(fd) == 0, ErrorCode::kIo, OsError("cannot fsync", path));
  } catch (...) {
    ::close(fd);
    throw;
  }
  Check(::close(fd) == 0, ErrorCode::kIo, OsError("cannot close", path));
}

void WriteIntoFile(const std::string& path, const std::vector<PlacedSpan>& pieces, int64_t final_size, bool sync) {
  CreateParentDirectories(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  Check(fd >= 0, ErrorCode::kIo, OsError("cannot open for writing", path));
  try {
    // Pieces that follow each other in the file go out in one vectored write.
    for (size_t i = 0; i < pieces.size();) {
      std::vector<iovec> iov;
      int64_t end = pieces[i].offset;
      size_t j = i;
      for (; j < pieces.size() && pieces[j].offset == end; ++j) {
        if (pieces[j].bytes.size > 0)
          iov.push_back(iovec{const_cast<uint8_t*>(pieces[j].bytes.data), static_cast<size_t>(pieces[j].bytes.size)});
        end += pieces[j].bytes.size;
      }
      WriteVectorAt(fd, iov, static_cast<off_t>(pieces[i].offset), path);
      i = j;
    }
    if (final_size >= 0)
      Check(::ftruncate(fd, static_cast<off_t>(final_size)) == 0, ErrorCode::kIo, OsError("cannot set the size of", path));
    if (sync) Check(::fsync(fd) == 0, ErrorCode::kIo, OsError("cannot fsync", path));
  } catch (...) {
    ::close(fd);
    throw;
  }
  Check(::close(fd) == 0, ErrorCode::kIo, OsError("cannot close", path));
}

}  // namespace hzio::mpi
