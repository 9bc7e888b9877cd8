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
#include "hzio/storage/file.h"
#include "hzio/util/crash_point.h"
#include "hzio/util/error.h"
#include "hzio/util/large_allocation.h"
#include "hzio/util/thread_pool.h"

namespace hzio {

namespace {

constexpr int64_t kDirectAlign = kDirectIoAlignment;
// A direct write is cut into chunks of this size at aligned offsets, each gathered from the pieces
// into a staging buffer of its lane and written with one pwrite. Up to kDirectLanes chunks are in
// flight at once on disjoint ranges of the file (the calling thread and kDirectLanes - 1 helpers):
// one synchronous write at a time left the device idle while the next chunk was gathered and
// between completions (0.94 GiB/s for a 256 MiB file, measured in bench/mpi/RESULTS.md).
constexpr int64_t kDirectChunk = int64_t{8} << 20;
constexpr int kDirectLanes = 4;

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

// The pieces as one logical byte string: any range of it is gathered without walking from the start.
class Concatenation {
 public:
  explicit Concatenation(const std::vector<ByteSpan>& pieces) {
    for (const ByteSpan& p : pieces)
      if (p.size > 0) {
        pieces_.push_back(p);
        starts_.push_back(total_);
        total_ += p.size;
      }
  }
  int64_t size() const { return total_; }
  /// Copies bytes [from, from + n) (inside the string) to `to`.
  void Gather(int64_t from, int64_t n, uint8_t* to) const {
    size_t i = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), from) - starts_.begin()) - 1;
    for (int64_t at = from - starts_[i]; n > 0; ++i, at = 0) {
      const int64_t k = std::min(n, pieces_[i].size - at);
      std::memcpy(to, pieces_[i].data + at, static_cast<size_t>(k));
      to += k;
      n -= k;
    }
  }

 private:
  std::vector<ByteSpan> pieces_;
  std::vector<int64_t> starts_;
  int64_t total_ = 0;
};

// The helpers of direct writes: threads that mostly wait for the device, so they are apart from
// the encoding pool (ThreadPool::Shared) and never take its cores from it for long.
ThreadPool& DirectWriteLanes() {
  static ThreadPool lanes(kDirectLanes - 1);
  return lanes;
}

// This thread's staging buffer of direct writes: mapped (so page-aligned, in huge pages) and kept
// warm from one file to the next.
uint8_t* Staging() {
  thread_local LargeAllocation staging;
  if (staging.size() < static_cast<size_t>(kDirectChunk)) staging = LargeAllocation(static_cast<size_t>(kDirectChunk));
  return staging.data();
}

// Writes bytes [offset, offset + fill) of `bytes`, padded with zeros to the alignment, at `offset`
// of `fd` through this thread's staging buffer. Returns false, having written nothing, if the write
// is refused with EINVAL and `probe` (a file system that takes the flag at open but not the I/O).
bool WriteStaged(int fd, const Concatenation& bytes, int64_t offset, int64_t fill, const std::string& path, bool probe) {
  uint8_t* const staging = Staging();
  const int64_t n = (fill + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  bytes.Gather(offset, fill, staging);
  std::memset(staging + fill, 0, static_cast<size_t>(n - fill));
  for (int64_t done = 0; done < n;) {
    CrashPoint("write " + path);
    const ssize_t w = ::pwrite(fd, staging + done, static_cast<size_t>(n - done), offset + done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EINVAL && probe && done == 0) return false;
    if (w <= 0) throw OsError(path, "cannot write");
    done += w;
  }
  return true;
}

// Writes `pieces` into `fd` (opened with O_DIRECT), the last block padded with zeros, and cuts the
// file back to their size. The padded size is allocated first (fallocate), so the chunks that
// follow the first overwrite allocated blocks inside the file's size: ext4 then runs concurrent
// direct writes of one file side by side, where writes that extend a file serialise on its lock.
// Whether the file system takes direct writes is asked with the first aligned block alone, so that
// every chunk then goes out at once (a whole first chunk as the probe kept the others waiting
// for it: ~5 ms of a 32 MiB durable write, bench/mpi/RESULTS.md). Returns false, having written
// nothing, if the probe is refused with EINVAL.
bool WriteDirect(int fd, const std::vector<ByteSpan>& pieces, const std::string& path) {
  const Concatenation bytes(pieces);
  const int64_t total = bytes.size();
  const int64_t padded = (total + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  const int64_t chunks = (total + kDirectChunk - 1) / kDirectChunk;
  if (chunks > 1 && ::fallocate(fd, 0, 0, static_cast<off_t>(padded)) != 0 && errno != EOPNOTSUPP && errno != ENOSYS)
    throw OsError(path, "cannot allocate " + std::to_string(padded) + " bytes for");
  // A single chunk is its own probe.
  const int64_t probe = chunks == 1 ? total : std::min(kDirectAlign, total);
  if (!WriteStaged(fd, bytes, 0, probe, path, /*probe=*/true)) return false;
  if (chunks > 1) {
    DirectWriteLanes().ParallelFor(chunks, [&](int64_t c) {
      const int64_t offset = c * kDirectChunk;
      WriteStaged(fd, bytes, offset, std::min(kDirectChunk, total - offset), path, false);
    });
  }
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
    if (fd.valid() && WriteDirect(fd.get(), pieces, path)) {
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
