#include "hzio/storage/block_file_write.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "hzio/storage/durable_file.h"
#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"
#include "hzio/util/large_allocation.h"

namespace hzio {

namespace {

// O_DIRECT alignment of buffers, offsets and lengths: 4 KiB covers every logical block size in
// use (512 B and 4 KiB sectors).
constexpr int64_t kDirectAlign = 4096;
// The staging buffer of direct writes: large enough that each pwrite keeps the device busy.
constexpr int64_t kDirectChunk = int64_t{16} << 20;

// Writes `iov` (consumed) at `offset` with as few pwritev calls as IOV_MAX allows.
void WriteVectorAt(int fd, std::vector<iovec>& iov, off_t offset, const std::string& path) {
  size_t first = 0;
  while (first < iov.size()) {
    CrashPoint("write " + path);
    const int n = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
    const ssize_t w = ::pwritev(fd, iov.data() + first, n, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw OsError(path, "cannot write");
    offset += w;
    size_t left = static_cast<size_t>(w);
    while (first < iov.size() && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < iov.size() && left > 0) {
      iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
}

void CreateParentDirectories(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);  // tolerates another rank creating it too
  Check(!ec, ErrorCode::kIo, "cannot create directory " + parent.string() + ": " + ec.message());
}

int64_t TotalBytes(const std::vector<ByteSpan>& pieces) {
  int64_t total = 0;
  for (const ByteSpan& p : pieces) total += std::max<int64_t>(p.size, 0);
  return total;
}

// Copies `pieces` through an aligned staging buffer into `fd` (opened with O_DIRECT), padding the
// last block with zeros and cutting the file back to `total`. Returns false, having written
// nothing, if the first write is refused with EINVAL (a file system that takes the flag at open
// but not the I/O).
bool WriteDirect(int fd, const std::vector<ByteSpan>& pieces, int64_t total, const std::string& path) {
  // One staging buffer per thread, kept: mapped (so page-aligned) and warm after the first file.
  thread_local LargeAllocation staging;
  if (staging.size() < static_cast<size_t>(kDirectChunk)) staging = LargeAllocation(static_cast<size_t>(kDirectChunk));
  const int64_t chunk = kDirectChunk;
  int64_t offset = 0, fill = 0;
  const auto flush = [&](bool last) {
    int64_t n = fill;
    if (last) {
      n = (fill + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
      std::memset(staging.data() + fill, 0, static_cast<size_t>(n - fill));
    }
    for (int64_t done = 0; done < n;) {
      CrashPoint("write " + path);
      const ssize_t w = ::pwrite(fd, staging.data() + done, static_cast<size_t>(n - done), offset + done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EINVAL && offset == 0 && done == 0) return false;
      if (w <= 0) throw OsError(path, "cannot write");
      done += w;
    }
    offset += fill;
    fill = 0;
    return true;
  };
  for (const ByteSpan& p : pieces)
    for (int64_t at = 0; at < p.size;) {
      const int64_t n = std::min(p.size - at, chunk - fill);
      std::memcpy(staging.data() + fill, p.data + at, static_cast<size_t>(n));
      fill += n;
      at += n;
      if (fill == chunk && !flush(false)) return false;
    }
  if (fill > 0 && !flush(true)) return false;
  if (::ftruncate(fd, static_cast<off_t>(total)) != 0) throw OsError(path, "cannot set the size of");
  return true;
}

}  // namespace

bool WriteWholeFile(const std::string& path, const std::vector<ByteSpan>& pieces, bool sync, DirectIo direct) {
  CreateParentDirectories(path);
  const int64_t total = TotalBytes(pieces);
  const bool try_direct =
      direct == DirectIo::kAlways || (direct == DirectIo::kAuto && sync && total >= kDirectIoMinBytes);
  if (try_direct && total > 0) {
    ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644));
    if (!fd.valid() && errno != EINVAL) throw OsError(path, "cannot create");
    if (fd.valid() && WriteDirect(fd.get(), pieces, total, path)) {
      // The data is on the device; fsync still commits the size and the allocation.
      if (sync && ::fsync(fd.get()) != 0) throw OsError(path, "cannot fsync");
      if (::close(fd.Release()) != 0) throw OsError(path, "cannot close");
      return true;
    }
  }
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) throw OsError(path, "cannot create");
  // Merge adjacent pieces, then write with as few writev calls as IOV_MAX allows.
  std::vector<iovec> iov;
  for (const ByteSpan& p : pieces) {
    if (p.size <= 0) continue;
    if (!iov.empty() && static_cast<const uint8_t*>(iov.back().iov_base) + iov.back().iov_len == p.data)
      iov.back().iov_len += static_cast<size_t>(p.size);
    else
      iov.push_back(iovec{const_cast<uint8_t*>(p.data), static_cast<size_t>(p.size)});
  }
  WriteVectorAt(fd.get(), iov, 0, path);
  if (sync && ::fsync(fd.get()) != 0) throw OsError(path, "cannot fsync");
  if (::close(fd.Release()) != 0) throw OsError(path, "cannot close");
  return false;
}

void WriteIntoFile(const std::string& path, const std::vector<PlacedSpan>& pieces, int64_t final_size, bool sync) {
  CreateParentDirectories(path);
  ScopedFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) throw OsError(path, "cannot open for writing");
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
    WriteVectorAt(fd.get(), iov, static_cast<off_t>(pieces[i].offset), path);
    i = j;
  }
  if (final_size >= 0 && ::ftruncate(fd.get(), static_cast<off_t>(final_size)) != 0)
    throw OsError(path, "cannot set the size of");
  if (sync && ::fsync(fd.get()) != 0) throw OsError(path, "cannot fsync");
  if (::close(fd.Release()) != 0) throw OsError(path, "cannot close");
}

}  // namespace hzio
